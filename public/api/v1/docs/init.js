// Mounts the API reference (public/api/v1/docs/scalar.js, the pinned @scalar/api-reference standalone build)
// on the docs page. A file rather than an inline script, so the page runs under its `script-src 'self'` policy.
const app = document.getElementById("app");
Scalar.createApiReference(app, { url: app.dataset.url, withDefaultFonts: false, telemetry: false });

/**
 * An HTTP Basic `authorization` value (RFC 7617) with the credentials as UTF-8: `btoa` alone takes
 * Latin-1 text only and throws on anything beyond it.
 */
export function basicAuth(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

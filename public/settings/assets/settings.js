// The settings area's one script (src/settings/layout.tsx), a same-origin file under the pages' CSP.
// Everything works without it: it only shows "copy" buttons (hidden in the HTML) and wires them up.
// <button data-copy="ID" hidden> copies the text of the element with that id.
for (const button of document.querySelectorAll("button[data-copy]")) {
  const source = document.getElementById(button.dataset.copy);
  if (!source || !navigator.clipboard) continue;
  button.hidden = false;
  const label = button.textContent;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      button.textContent = "Copied";
    } catch {
      button.textContent = "Copy failed: select the text";
    }
    setTimeout(() => {
      button.textContent = label;
    }, 2000);
  });
}

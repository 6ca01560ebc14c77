// "Back" and "Cancel" links: go back in the browser's history; without script (or history)
// they follow their href. A script file, not a javascript: URL, so the UI's CSP
// (script-src 'self') can forbid inline script.
document.addEventListener("click", function (event) {
  var link = event.target.closest && event.target.closest("a[data-back]");
  if (link && window.history.length > 1) {
    event.preventDefault();
    window.history.back();
  }
});

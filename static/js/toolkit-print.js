// The cheat sheet's print button: the browser's own print dialog (the page's print CSS fits it
// on one A4 or Letter page).
(function () {
  "use strict";
  const button = document.querySelector('[data-role="print"]');
  if (button) button.addEventListener("click", () => window.print());
})();

// Light or dark for the whole site, chosen once and remembered (localStorage), following the
// system setting until the reader picks. Loaded in <head> so the page never flashes the wrong
// colours. Embeds are left alone: their `theme` query parameter is the host page's choice.
// Views that draw with the theme's colours listen for the "themechange" event on document.
(function (global) {
  "use strict";
  const KEY = "collective-lab:theme";
  const root = document.documentElement;
  if (root.dataset.themeFixed !== undefined) return;

  function stored() {
    try {
      const value = global.localStorage.getItem(KEY);
      return value === "light" || value === "dark" ? value : null;
    } catch (e) {
      return null; // storage blocked (private mode, sandboxed frame): follow the system
    }
  }
  function system() {
    return global.matchMedia && global.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  function apply(theme) {
    if (root.dataset.theme === theme) return;
    root.dataset.theme = theme;
    document.dispatchEvent(new CustomEvent("themechange", { detail: { theme } }));
  }
  apply(stored() || system());

  // An embedded lab or calculator inside a page (the lessons' iframes) follows the page.
  function followFrames(theme) {
    for (const frame of document.querySelectorAll("iframe[data-follows-theme]")) {
      const url = new URL(frame.src, global.location.href);
      if ((url.searchParams.get("theme") || "light") === theme) continue;
      url.searchParams.set("theme", theme);
      frame.src = url.toString();
    }
  }

  function bindToggle() {
    const button = document.querySelector('[data-role="theme-toggle"]');
    const label = () => {
      const dark = root.dataset.theme === "dark";
      if (!button) return;
      button.setAttribute("aria-pressed", String(dark));
      button.textContent = dark ? "Light theme" : "Dark theme";
    };
    label();
    followFrames(root.dataset.theme);
    if (button) {
      button.hidden = false;
      button.addEventListener("click", () => {
        const next = root.dataset.theme === "dark" ? "light" : "dark";
        try { global.localStorage.setItem(KEY, next); } catch (e) { /* still switch for this page */ }
        apply(next);
      });
    }
    document.addEventListener("themechange", (e) => { label(); followFrames(e.detail.theme); });
    if (global.matchMedia) {
      global.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
        if (!stored()) apply(system());
      });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", bindToggle);
  else bindToggle();
})(window);

// Light or dark for the whole site, chosen once and remembered (localStorage), following the
// system setting until the reader picks. Loaded in <head> so the page never flashes the wrong
// colours. Views that draw with the theme's colours listen for the "themechange" event on document.
//
// Embeds (data-theme-fixed) start in their `theme` query parameter, the host page's choice, and
// afterwards follow only their parent: a message {type: "collective-lab:theme", theme} from the
// window that frames them switches them in place, keeping their step and inputs. A page with
// embedded frames (iframe[data-follows-theme], the lessons) sends them that message.
(function (global) {
  "use strict";
  const KEY = "collective-lab:theme";
  const MESSAGE = "collective-lab:theme";
  const THEMES = ["light", "dark"];
  const root = document.documentElement;

  function apply(theme) {
    if (root.dataset.theme === theme) return;
    root.dataset.theme = theme;
    document.dispatchEvent(new CustomEvent("themechange", { detail: { theme } }));
  }

  // -- inside an embed: take the theme from the parent only ----------------------------------
  function isThemeMessage(event) {
    const data = event.data;
    return event.source === global.parent && event.source !== global
      && data !== null && typeof data === "object"
      && data.type === MESSAGE && THEMES.includes(data.theme);
  }

  if (root.dataset.themeFixed !== undefined) {
    global.addEventListener("message", (event) => { if (isThemeMessage(event)) apply(event.data.theme); });
    return;
  }

  // -- a page of the site ----------------------------------------------------------------------
  function stored() {
    try {
      const value = global.localStorage.getItem(KEY);
      return THEMES.includes(value) ? value : null;
    } catch (e) {
      return null; // storage blocked (private mode, sandboxed frame): follow the system
    }
  }
  function system() {
    return global.matchMedia && global.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  apply(stored() || system());

  function followingFrames() {
    return document.querySelectorAll("iframe[data-follows-theme]");
  }

  // Before a frame has loaded, its URL carries the theme, so it never shows the other one first.
  function startFramesIn(theme) {
    for (const frame of followingFrames()) {
      const url = new URL(frame.src, global.location.href);
      if ((url.searchParams.get("theme") || "light") === theme) continue;
      url.searchParams.set("theme", theme);
      frame.src = url.toString();
    }
  }

  // Once loaded, a frame is told the theme: setting its src again would reload it.
  function tell(frame, theme) {
    if (!frame.contentWindow) return;
    const origin = new URL(frame.src, global.location.href).origin;
    frame.contentWindow.postMessage({ type: MESSAGE, theme }, origin);
  }

  function bindFrames() {
    startFramesIn(root.dataset.theme);
    for (const frame of followingFrames()) {
      // A lazy frame may load after a switch; tell it the page's theme as it arrives.
      frame.addEventListener("load", () => tell(frame, root.dataset.theme));
    }
    document.addEventListener("themechange", (e) => {
      for (const frame of followingFrames()) tell(frame, e.detail.theme);
    });
  }

  function bindToggle() {
    const button = document.querySelector('[data-role="theme-toggle"]');
    const label = () => {
      const dark = root.dataset.theme === "dark";
      if (!button) return;
      button.setAttribute("aria-pressed", String(dark));
      button.textContent = dark ? _("Light theme") : _("Dark theme");
    };
    label();
    if (button) {
      button.hidden = false;
      button.addEventListener("click", () => {
        const next = root.dataset.theme === "dark" ? "light" : "dark";
        try { global.localStorage.setItem(KEY, next); } catch (e) { /* still switch for this page */ }
        apply(next);
      });
    }
    document.addEventListener("themechange", label);
    if (global.matchMedia) {
      global.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
        if (!stored()) apply(system());
      });
    }
  }

  function ready() {
    bindFrames();
    bindToggle();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})(window);

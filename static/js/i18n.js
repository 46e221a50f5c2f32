// The page's UI strings in its language, from the server's catalog (app/web/i18n.py): the
// page carries the translations its scripts use in #messages-data, so a script writes
// `_("Step {n} of {total}", { n: 3, total: 14 })` and reads English or Chinese alike. A message
// with no translation shows in English. Loaded in every page's <head>, before other scripts.
(function (global) {
  "use strict";
  const data = document.getElementById("messages-data");
  const messages = data ? JSON.parse(data.textContent) : {};
  const htmlLang = document.documentElement.lang || "en";

  function translate(msgid, vars) {
    const text = Object.prototype.hasOwnProperty.call(messages, msgid) ? messages[msgid] : msgid;
    if (!vars) return text;
    return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
  }

  const CL = global.CollectiveLab || (global.CollectiveLab = {});
  CL.lang = htmlLang.split("-")[0];
  CL.t = translate;
  // Numbers in the page's locale (grouping and decimal sign): 1234.5 → "1,234.5".
  CL.formatNumber = (x, options) => new Intl.NumberFormat(htmlLang, options).format(x);
  // An algorithm's name on the page: its id with spaces, in the page's language
  // (the server's names, app/collectives/names.py, come with the messages).
  CL.algorithmName = (id) => translate(String(id).replace(/_/g, " "));
  global._ = translate;
})(window);

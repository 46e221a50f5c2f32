// The quiz's shared helpers (CollectiveLab.quiz): building DOM nodes, the plain text of the
// server's HTML, and JSON over HTTP. The quiz is split by concern, loaded in this order:
// quiz-base.js, quiz-kinds.js (a question per kind), quiz-feedback.js (the graded answer),
// quiz-runner.js (one run of questions), quiz-results.js (results and the history kept in this
// browser), quiz.js (the /quiz page and a lesson's self-check).
(function (global) {
  "use strict";
  const Q = (global.CollectiveLab.quiz = {});

  // <tag attrs>children</tag>; `text` sets textContent, `html` innerHTML (server-sanitized only).
  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([key, value]) => {
      if (value === null || value === undefined || value === false) return;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key === "html") node.innerHTML = value; // server-sanitized HTML only
      else node.setAttribute(key, value === true ? "" : value);
    });
    (children || []).forEach((child) => {
      if (child === null || child === undefined || child === false) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function textOf(html) {
    const div = document.createElement("div");
    div.innerHTML = html;
    return (div.textContent || "").replace(/\s+/g, " ").trim();
  }

  function excerpt(text, limit) {
    if (text.length <= limit) return text;
    const cut = text.slice(0, limit);
    return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), limit / 2))}…`;
  }

  function shortTitle(title, limit) {
    // "Ring AllReduce: ReduceScatter, then AllGather" -> "Ring AllReduce", then at most `limit`.
    return excerpt(title.split(/[:：]/)[0], limit);
  }

  // The topic a question was chosen for (results count it there), else its own lesson.
  function topicOf(q) {
    return q.chosen_topic ? { slug: q.chosen_topic, title: q.chosen_topic_title } : { slug: q.topic, title: q.topic_title };
  }

  // A difficulty as the page shows it: "warm-up" -> "Warm-up" / "热身".
  const DIFFICULTY_LABELS = { "warm-up": _("Warm-up"), interview: _("Interview"), "deep-dive": _("Deep-dive") };
  const difficultyLabel = (d) => DIFFICULTY_LABELS[d] || d;

  // The API answers in the page's language (questions, feedback, topic titles): say which, as
  // an embed's requests carry no remembered choice.
  function withLang(url) {
    const u = new URL(url, global.location.href);
    if (!u.searchParams.has("lang")) u.searchParams.set("lang", global.CollectiveLab.lang || "en");
    return u.origin === global.location.origin ? u.pathname + u.search : u.href;
  }

  // -- JSON over HTTP: an error answer becomes an Error with the server's message --------------
  async function getJSON(url) {
    const response = await fetch(withLang(url), { headers: { Accept: "application/json" } });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    return data;
  }

  async function postJSON(url, body) {
    const response = await fetch(withLang(url), {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const err = new Error(data.error || `HTTP ${response.status}`);
      err.stale = data.stale === true; // made with another key: offer a fresh question
      throw err;
    }
    return data;
  }

  Object.assign(Q, { el, textOf, excerpt, shortTitle, topicOf, difficultyLabel, withLang, getJSON, postJSON });
})(window);

// The quiz: fetch questions (no answers in them), collect an answer, let the server grade it,
// show why, and keep a history in this browser (localStorage). Used by /quiz and by lesson
// self-checks (<section class="quiz-embed" data-quiz-lesson="slug">).
// Keys while a question is shown: 1-9 pick an option (or the next item of an ordering),
// Enter submits, N goes to the next question, Backspace undoes the last ordering pick.
(function (global) {
  "use strict";

  const STORE_KEY = "collective-lab.quiz.history.v1";
  const HISTORY_LIMIT = 30;
  const KIND_HINTS = {
    single: "Choose one.",
    multiple: "Choose all that apply.",
    predict: "Select all that apply (it may be just one).",
    numeric: "Type a number; the unit is given.",
    order: "Pick the items in order: press their numbers, or click them.",
    match: "Pair each item on the left with one on the right.",
    explain: "Answer in your own words, then compare with the model answer. Ctrl+Enter submits.",
  };

  // -- small DOM helpers ----------------------------------------------------------------------
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
    return excerpt(title.split(":")[0], limit);
  }

  // The topic a question was chosen for (results count it there), else its own lesson.
  function topicOf(q) {
    return q.chosen_topic ? { slug: q.chosen_topic, title: q.chosen_topic_title } : { slug: q.topic, title: q.topic_title };
  }

  function chunkLabel(i) {
    return global.Palette ? global.Palette.chunkLabel(i) : String.fromCharCode(65 + i);
  }

  // -- history in localStorage ----------------------------------------------------------------
  const History = {
    read() {
      try {
        const data = JSON.parse(global.localStorage.getItem(STORE_KEY) || "[]");
        return Array.isArray(data) ? data : [];
      } catch (err) {
        return []; // storage blocked or corrupt: behave as a first visit
      }
    },
    add(attempt) {
      const data = this.read();
      data.push(attempt);
      try {
        global.localStorage.setItem(STORE_KEY, JSON.stringify(data.slice(-HISTORY_LIMIT)));
      } catch (err) {
        /* private mode or quota: history simply is not kept */
      }
    },
    clear() {
      try { global.localStorage.removeItem(STORE_KEY); } catch (err) { /* nothing kept */ }
    },
  };

  // -- the HTTP side ----------------------------------------------------------------------------
  async function getJSON(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    return data;
  }

  async function postJSON(url, body) {
    const response = await fetch(url, {
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

  function parseNumber(raw) {
    let text = String(raw).trim().replace(/[\s\u00a0_]/g, "");
    if (text.includes(",") && !text.includes(".")) text = text.replace(",", ".");
    else text = text.replace(/,/g, "");
    if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text)) return null;
    const value = Number(text);
    return Number.isFinite(value) ? value : null;
  }

  // -- rendering one question ---------------------------------------------------------------
  function keyBadge(n) {
    return n <= 9 ? el("kbd", { class: "key", "aria-hidden": "true", text: String(n) }) : null;
  }

  function renderChoices(q, form) {
    const type = q.select === "one" ? "radio" : "checkbox";
    const list = el("div", { class: "options", role: type === "radio" ? "radiogroup" : "group" });
    // An exclusive option ("none: no chunk ...") and the others cannot be checked together.
    const settle = (input) => {
      if (!input.checked) return;
      list.querySelectorAll("input").forEach((other) => {
        if (other !== input && (input.dataset.exclusive || other.dataset.exclusive)) other.checked = false;
      });
    };
    q.options.forEach((option, i) => {
      const id = `${form.uid}-opt-${i}`;
      const input = el("input", { type, name: `${form.uid}-options`, value: option.id, id,
        "data-exclusive": option.exclusive ? "true" : null });
      input.addEventListener("change", () => settle(input));
      const label = el("label", { class: "option", for: id }, [
        input,
        keyBadge(i + 1),
        el("span", { class: "option-text", html: option.html }),
      ]);
      label.dataset.optionId = option.id;
      list.appendChild(label);
    });
    form.body.appendChild(el("fieldset", { class: "answer-set" }, [
      el("legend", { class: "visually-hidden", text: KIND_HINTS[q.kind] }),
      list,
    ]));
    form.pick = (n) => {
      const inputs = list.querySelectorAll("input");
      const input = inputs[n - 1];
      if (!input || input.disabled) return;
      input.checked = type === "radio" ? true : !input.checked;
      settle(input);
      input.focus();
    };
    form.answer = () => {
      const chosen = Array.from(list.querySelectorAll("input:checked")).map((i) => i.value);
      if (!chosen.length) return { error: "Pick an option first." };
      const extra = q.token ? { params: q.params, token: q.token } : null;
      return { value: type === "radio" ? chosen[0] : chosen, extra };
    };
    form.lock = () => list.querySelectorAll("input").forEach((i) => { i.disabled = true; });
  }

  function renderFigure(fig) {
    const table = el("table", { class: "buffer-view" });
    const caption = fig.steps_done
      ? `Buffers after step ${fig.steps_done} of ${fig.total_steps}` +
        (fig.last_phase ? ` (${fig.last_phase})` : "") +
        ". Each cell lists whose contributions that copy holds."
      : `Buffers before the first step (${fig.total_steps} steps in all). ` +
        "Each cell lists whose contributions that copy holds.";
    table.appendChild(el("caption", { class: "visually-hidden", text: caption }));
    const head = el("tr", {}, [el("th", { scope: "col", text: "rank" })]);
    fig.chunks.forEach((label, c) => {
      const th = el("th", { scope: "col", text: label });
      if (global.Palette) th.style.borderBottom = `4px solid ${global.Palette.chunkColor(c)}`;
      head.appendChild(th);
    });
    table.appendChild(el("thead", {}, [head]));
    const body = el("tbody");
    const full = fig.ranks;
    fig.holdings.forEach((row, r) => {
      const tr = el("tr", {}, [el("th", { scope: "row", text: String(r) })]);
      row.forEach((held) => {
        let text = "—";
        if (held.length === full && full > 2) text = "all";
        else if (held.length) text = held.join(" ");
        tr.appendChild(el("td", { class: held.length ? (held.length === full ? "full" : "some") : "empty", text }));
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    const wrap = el("figure", { class: "figure-wrap" }, [
      el("figcaption", { class: "muted", "aria-hidden": "true", text: caption }), table]);
    if (fig.last_step && fig.last_step.length) {
      const moves = fig.last_step
        .map((t) => `${t.src}→${t.dst} ${t.chunk}${t.op === "reduce" ? " (reduce)" : ""}`)
        .join(", ");
      wrap.appendChild(el("p", { class: "muted last-step", text: `Step ${fig.steps_done} moved: ${moves}.` }));
    }
    return wrap;
  }

  function renderNumeric(q, form) {
    const id = `${form.uid}-number`;
    const input = el("input", {
      id, type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false",
      class: "numeric-input", "aria-describedby": `${id}-unit`,
    });
    form.body.appendChild(el("div", { class: "numeric-row" }, [
      el("label", { for: id, text: "Your answer" }),
      input,
      el("span", { id: `${id}-unit`, class: "unit", text: q.unit || "" }),
    ]));
    form.focusTarget = input;
    form.answer = () => {
      const value = parseNumber(input.value);
      if (value === null) return { error: "Enter a number, e.g. 12.5 or 1.2e3." };
      return { value, extra: { params: q.params, token: q.token } };
    };
    form.lock = () => { input.disabled = true; };
  }

  function renderOrder(q, form) {
    const picked = [];
    const pool = el("ol", { class: "order-pool", "aria-label": "Items to place" });
    const chosen = el("ol", { class: "order-chosen", "aria-label": "Your order", "aria-live": "polite" });
    const buttons = q.items.map((item, i) => {
      const button = el("button", { type: "button", class: "order-item" }, [
        keyBadge(i + 1),
        el("span", { class: "option-text", html: item.html }),
      ]);
      button.addEventListener("click", () => place(i));
      pool.appendChild(el("li", {}, [button]));
      return button;
    });
    const undo = el("button", { type: "button", text: "Undo" });
    const reset = el("button", { type: "button", text: "Start over" });
    function refresh() {
      chosen.textContent = "";
      picked.forEach((i) => chosen.appendChild(el("li", { html: q.items[i].html })));
      buttons.forEach((b, i) => { b.disabled = picked.includes(i) || form.locked; });
      undo.disabled = !picked.length || form.locked;
      reset.disabled = !picked.length || form.locked;
    }
    function place(i) {
      if (form.locked || picked.includes(i) || i >= q.items.length) return;
      picked.push(i);
      refresh();
    }
    undo.addEventListener("click", () => { picked.pop(); refresh(); });
    reset.addEventListener("click", () => { picked.length = 0; refresh(); });
    form.body.appendChild(el("div", { class: "order" }, [
      el("div", {}, [el("p", { class: "order-label", text: "Items" }), pool]),
      el("div", {}, [el("p", { class: "order-label", text: "Your order" }), chosen,
        el("p", { class: "order-tools" }, [undo, " ", reset])]),
    ]));
    refresh();
    form.pick = (n) => place(n - 1);
    form.undo = () => { if (!form.locked) { picked.pop(); refresh(); } };
    form.answer = () => {
      if (picked.length !== q.items.length) return { error: `Place all ${q.items.length} items first.` };
      return { value: picked.map((i) => q.items[i].id) };
    };
    form.lock = () => { form.locked = true; refresh(); };
  }

  function renderMatch(q, form) {
    const rows = q.left.map((left, i) => {
      const id = `${form.uid}-match-${i}`;
      const select = el("select", { id }, [el("option", { value: "", text: "— choose —" })]);
      q.right.forEach((right) => select.appendChild(el("option", { value: right.id, text: textOf(right.html) })));
      return { left, select, row: el("div", { class: "match-row" }, [
        el("label", { for: id, class: "match-left", html: left.html }), select]) };
    });
    form.body.appendChild(el("div", { class: "match" }, rows.map((r) => r.row)));
    form.focusTarget = rows.length ? rows[0].select : null;
    form.answer = () => {
      const answer = {};
      for (const r of rows) {
        if (!r.select.value) return { error: "Choose a match for every item." };
        answer[r.left.id] = r.select.value;
      }
      return { value: answer };
    };
    form.lock = () => rows.forEach((r) => { r.select.disabled = true; });
  }

  function renderExplain(q, form) {
    const id = `${form.uid}-explain`;
    const area = el("textarea", { id, rows: "6", maxlength: "4000" });
    form.body.appendChild(el("div", { class: "explain" }, [
      el("label", { for: id, text: "Your answer (not graded: you compare it with the model answer)" }),
      area,
    ]));
    form.focusTarget = area;
    form.answer = () => ({ value: area.value });
    form.lock = () => { area.readOnly = true; };
  }

  // -- feedback -------------------------------------------------------------------------------
  function verdict(result) {
    if (result.correct === null) {
      return el("p", { class: "verdict self", text: "Compare your answer with the model answer, then tick what you covered." });
    }
    return el("p", { class: `verdict ${result.correct ? "ok" : "bad"}` }, [
      el("span", { "aria-hidden": "true", text: result.correct ? "✓ " : "✗ " }),
      result.correct ? "Right." : "Not quite.",
    ]);
  }

  function optionFeedback(result, q) {
    const order = (q.options || []).map((o) => o.id);
    const options = result.options.slice().sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    return el("ul", { class: "option-feedback" }, options.map((o) => {
      const marks = [];
      if (o.correct) marks.push("correct");
      if (o.chosen) marks.push("your choice");
      return el("li", { class: o.correct ? "is-correct" : o.chosen ? "is-wrong" : "" }, [
        el("span", { class: "mark", "aria-hidden": "true", text: o.correct ? "✓" : o.chosen ? "✗" : "·" }),
        el("div", {}, [
          el("span", { class: "option-text", html: o.html }),
          marks.length ? el("span", { class: "tags", text: ` (${marks.join(", ")})` }) : null,
          o.why_html ? el("div", { class: "why", html: o.why_html }) : null,
        ]),
      ]);
    }));
  }

  function renderFeedback(result, q, onSelfScore, embedded) {
    const box = el("div", { class: "feedback-body" });
    const heading = el(embedded ? "h4" : "h3", { tabindex: "-1", class: "feedback-title", text: "Feedback" });
    box.appendChild(heading);
    box.appendChild(verdict(result));
    if (result.options && q.kind !== "predict") box.appendChild(optionFeedback(result, q));
    if (q.kind === "predict") {
      box.appendChild(optionFeedback(result, q));
      box.appendChild(el("ul", { class: "steps" }, result.steps.map((s) => el("li", { text: s }))));
    }
    if (q.kind === "numeric") {
      box.appendChild(el("p", {}, [
        "Your answer: ", el("strong", { text: `${result.answer} ${result.unit}` }),
        ` · expected ${result.expected_text} (${result.tolerance} accepted)`,
      ]));
      box.appendChild(el("p", { class: "formula-title", text: "How it is computed (the app's cost model):" }));
      box.appendChild(el("pre", { class: "formula" }, [result.formula.join("\n")]));
    }
    if (q.kind === "order") {
      box.appendChild(el("p", { text: `${result.positions_right} of ${result.order.length} in the right place. The right order:` }));
      box.appendChild(el("ol", { class: "order-feedback" }, result.order.map((item) =>
        el("li", { class: item.placed_right ? "is-correct" : "is-wrong" }, [
          el("span", { html: item.html }),
          el("span", { class: "tags", text: item.placed_right ? " (you had it here)" : " (you placed something else here)" }),
        ]))));
    }
    if (q.kind === "match") {
      box.appendChild(el("ul", { class: "option-feedback" }, result.pairs.map((p) =>
        el("li", { class: p.correct ? "is-correct" : "is-wrong" }, [
          el("span", { class: "mark", "aria-hidden": "true", text: p.correct ? "✓" : "✗" }),
          el("div", {}, [
            el("span", { html: p.left_html }), " → ", el("strong", { html: p.right_html }),
            p.correct ? null : el("span", { class: "tags" }, [" (you chose: ", el("span", { html: p.chosen_html }), ")"]),
            p.why_html ? el("div", { class: "why", html: p.why_html }) : null,
          ]),
        ]))));
    }
    if (q.kind === "explain") {
      box.appendChild(el(embedded ? "h5" : "h4", { text: "Model answer" }));
      box.appendChild(el("div", { class: "model-answer", html: result.model_answer_html }));
      box.appendChild(el(embedded ? "h5" : "h4", { text: "Did your answer cover these?" }));
      const list = el("ul", { class: "checklist" });
      const boxes = result.checklist.map((item, i) => {
        const id = `check-${q.id}-${i}`;
        const input = el("input", { type: "checkbox", id });
        input.addEventListener("change", () => {
          const ticked = boxes.filter((b) => b.checked).length;
          onSelfScore(ticked / boxes.length);
        });
        list.appendChild(el("li", {}, [el("label", { for: id }, [input, " ", el("span", { html: item })])]));
        return input;
      });
      box.appendChild(list);
    }
    if (result.explanation_html) box.appendChild(el("div", { class: "explanation", html: result.explanation_html }));
    box.appendChild(el("p", { class: "lesson-link" }, [
      "Read the lesson: ", el("a", { href: result.lesson_url, text: result.topic_title }),
    ]));
    return { box, heading };
  }

  // -- one run of questions -------------------------------------------------------------------
  class Runner {
    constructor(root, options) {
      this.root = root;
      this.answerUrl = options.answerUrl;
      this.questionsUrl = options.questionsUrl;
      this.onFinish = options.onFinish || (() => {});
      this.embedded = Boolean(options.embedded);
      this.questions = [];
      this.results = [];
      this.index = 0;
      this.uidBase = `q${Math.random().toString(36).slice(2, 8)}`;
      this.build();
    }

    build() {
      const r = this.root;
      r.textContent = "";
      this.progress = el("p", { class: "quiz-progress muted", "aria-live": "polite" });
      this.timer = el("p", { class: "quiz-timer", hidden: true, role: "timer", "aria-live": "off" });
      this.bar = el("progress", { class: "quiz-bar", max: "1", value: "0", "aria-hidden": "true" });
      this.quit = el("button", { type: "button", class: "quiz-quit", text: this.embedded ? "Stop" : "End quiz" });
      this.card = el("article", { class: "question-card panel" });
      this.feedback = el("div", { class: "feedback", "aria-live": "polite" });
      this.error = el("p", { class: "quiz-error error-box", role: "alert", hidden: true });
      this.staleText = el("p");
      this.freshButton = el("button", { type: "button", class: "primary fresh-question", text: "Continue with a fresh question" });
      this.stale = el("div", { class: "quiz-stale error-box", role: "alert", hidden: true }, [this.staleText, this.freshButton]);
      this.submitButton = el("button", { type: "button", class: "primary submit-answer" }, ["Submit ", el("kbd", { text: "Enter" })]);
      this.nextButton = el("button", { type: "button", class: "next-question", hidden: true }, ["Next ", el("kbd", { text: "N" })]);
      r.append(
        el("div", { class: "run-bar" }, [this.progress, this.timer, this.quit]),
        this.bar, this.card, this.error, this.stale, this.feedback,
        el("div", { class: "run-actions" }, [this.submitButton, " ", this.nextButton]),
      );
      this.submitButton.addEventListener("click", () => this.submit());
      this.nextButton.addEventListener("click", () => this.next());
      this.freshButton.addEventListener("click", () => this.refresh());
      this.quit.addEventListener("click", () => this.finish(true));
      this.keyHandler = (event) => this.onKey(event);
      (this.embedded ? r : document).addEventListener("keydown", this.keyHandler);
    }

    start(questions, timeLimitS) {
      this.questions = questions;
      this.results = questions.map(() => null);
      this.index = 0;
      this.startedAt = Date.now();
      this.timeLimitS = timeLimitS || null;
      if (this.timeLimitS) this.startTimer();
      this.show();
    }

    startTimer() {
      this.timer.hidden = false;
      const tick = () => {
        const left = Math.max(0, this.timeLimitS - Math.floor((Date.now() - this.startedAt) / 1000));
        const m = Math.floor(left / 60);
        const s = String(left % 60).padStart(2, "0");
        this.timer.textContent = `Time left ${m}:${s}`;
        this.timer.classList.toggle("low", left <= 60);
        if (left === 0) this.finish(true, "Time is up.");
      };
      tick();
      this.timerId = global.setInterval(tick, 1000);
    }

    show() {
      const q = this.questions[this.index];
      const n = this.questions.length;
      this.progress.textContent = `Question ${this.index + 1} of ${n}`;
      this.bar.max = n;
      this.bar.value = this.index;
      this.feedback.textContent = "";
      this.error.hidden = true;
      this.stale.hidden = true;
      this.answered = false;
      this.submitButton.hidden = false;
      this.submitButton.disabled = false;
      this.nextButton.hidden = true;
      this.card.textContent = "";
      this.card.dataset.kind = q.kind;
      this.card.dataset.questionId = q.id;
      const title = el(this.embedded ? "h3" : "h2", { class: "question-title", tabindex: "-1" }, [
        el("span", { class: "visually-hidden", text: `Question ${this.index + 1}. ` }),
        el("span", { class: "badge topic", text: topicOf(q).title }), " ",
        el("span", { class: `badge level level-${q.difficulty}`, text: q.difficulty }),
        topicOf(q).slug !== q.topic ? el("span", { class: "muted home-lesson", text: ` from “${shortTitle(q.topic_title, 60)}”` }) : null,
      ]);
      const form = { uid: `${this.uidBase}-${this.index}`, body: el("div", { class: "answer-area" }) };
      this.card.append(title, el("div", { class: "prompt", html: q.prompt_html }));
      if (q.figure) this.card.appendChild(renderFigure(q.figure));
      const none = (q.options || []).find((o) => o.exclusive);
      const hint = none ? `${KIND_HINTS[q.kind]} If none fits, choose “${textOf(none.html)}”.` : KIND_HINTS[q.kind];
      this.card.appendChild(el("p", { class: "hint muted", text: hint }));
      this.card.appendChild(form.body);
      if (q.kind === "numeric") renderNumeric(q, form);
      else if (q.kind === "order") renderOrder(q, form);
      else if (q.kind === "match") renderMatch(q, form);
      else if (q.kind === "explain") renderExplain(q, form);
      else renderChoices(q, form);
      this.form = form;
      // A lesson's self-check does not take the focus when the page loads, only once in use.
      if (!this.embedded || this.index > 0 || this.results.some(Boolean)) {
        (form.focusTarget || title).focus({ preventScroll: true });
        title.scrollIntoView({ block: "nearest" });
      }
    }

    async submit() {
      if (this.answered || this.busy) return;
      const q = this.questions[this.index];
      const got = this.form.answer();
      if (got.error) {
        this.error.textContent = got.error;
        this.error.hidden = false;
        return;
      }
      this.error.hidden = true;
      this.busy = true;
      this.submitButton.disabled = true;
      try {
        const body = Object.assign({ id: q.id, answer: got.value }, got.extra || {});
        const result = await postJSON(this.answerUrl, body);
        this.answered = true;
        this.form.lock();
        const record = { id: q.id, topic: topicOf(q).slug, topic_title: topicOf(q).title, kind: q.kind,
          prompt: excerpt(textOf(q.prompt_html), 160), lesson_url: q.lesson_url,
          correct: result.correct, score: result.score === null ? 0 : result.score,
          selfAssessed: result.correct === null };
        this.results[this.index] = record;
        const { box, heading } = renderFeedback(result, q, (score) => { record.score = score; }, this.embedded);
        this.feedback.textContent = "";
        this.feedback.appendChild(box);
        this.submitButton.hidden = true;
        this.nextButton.hidden = false;
        this.nextButton.replaceChildren(
          this.index + 1 < this.questions.length ? "Next " : "See results ", el("kbd", { text: "N" }));
        heading.focus({ preventScroll: true });
        heading.scrollIntoView({ block: "nearest", behavior: "smooth" });
      } catch (err) {
        if (err.stale) {
          this.showStale();
        } else {
          this.error.textContent = `Could not check the answer: ${err.message}`;
          this.error.hidden = false;
          this.submitButton.disabled = false;
        }
      } finally {
        this.busy = false;
      }
    }

    // The server cannot grade this question (made with another key): say so, keep the score,
    // and offer fresh copies of this question and the ones still to come.
    showStale() {
      const done = this.results.filter(Boolean);
      const score = done.reduce((sum, r) => sum + (r.score || 0), 0);
      this.staleText.textContent = "This answer cannot be checked: the question was made with " +
        "another key (the server was restarted with a new secret, or another server handed it " +
        `out). Your score so far is kept: ${Math.round(score * 10) / 10} of ${done.length}.`;
      this.stale.hidden = false;
      this.freshButton.disabled = false;
      this.freshButton.focus({ preventScroll: true });
      this.stale.scrollIntoView({ block: "nearest" });
    }

    async refresh() {
      if (this.busy || !this.questionsUrl) return;
      const rest = this.questions.slice(this.index);
      const params = new URLSearchParams({ ids: rest.map((q) => q.id).join(","), count: String(rest.length) });
      this.busy = true;
      this.freshButton.disabled = true;
      try {
        const data = await getJSON(`${this.questionsUrl}?${params}`);
        const fresh = new Map(data.questions.map((q) => [q.id, q]));
        rest.forEach((old, i) => {
          const q = fresh.get(old.id);
          // Keep the topic the question was chosen for: the fresh copy was fetched by id.
          if (!q) return;
          q.chosen_topic = old.chosen_topic;
          q.chosen_topic_title = old.chosen_topic_title;
          this.questions[this.index + i] = q;
        });
        this.show();
      } catch (err) {
        this.staleText.textContent = `Could not fetch a fresh question: ${err.message}. Your score so far is kept.`;
        this.freshButton.disabled = false;
      } finally {
        this.busy = false;
      }
    }

    next() {
      if (!this.answered) return;
      if (this.index + 1 < this.questions.length) {
        this.index += 1;
        this.show();
      } else {
        this.finish(false);
      }
    }

    finish(early, reason) {
      if (this.finished) return;
      this.finished = true;
      global.clearInterval(this.timerId);
      (this.embedded ? this.root : document).removeEventListener("keydown", this.keyHandler);
      const results = this.questions.map((q, i) => this.results[i] || {
        id: q.id, topic: topicOf(q).slug, topic_title: topicOf(q).title, kind: q.kind,
        prompt: excerpt(textOf(q.prompt_html), 160), lesson_url: q.lesson_url,
        correct: false, score: 0, skipped: true,
      });
      this.onFinish({ results, early, reason, seconds: Math.round((Date.now() - this.startedAt) / 1000) });
    }

    onKey(event) {
      if (this.finished || event.defaultPrevented || event.altKey || event.metaKey) return;
      const target = event.target;
      const tag = target && target.tagName;
      const typing = tag === "TEXTAREA" || (tag === "INPUT" && target.type === "text") || tag === "SELECT";
      if (event.key === "Enter") {
        if (tag === "TEXTAREA" && !event.ctrlKey) return; // a newline
        if ((tag === "BUTTON" || tag === "A") && !event.ctrlKey) return; // the focused control acts
        if (!this.answered) {
          event.preventDefault();
          this.submit();
        }
        return;
      }
      if (typing || event.ctrlKey) return;
      if ((event.key === "n" || event.key === "N") && this.answered) {
        event.preventDefault();
        this.next();
      } else if (/^[1-9]$/.test(event.key) && !this.answered && this.form.pick) {
        event.preventDefault();
        this.form.pick(Number(event.key));
      } else if (event.key === "Backspace" && !this.answered && this.form.undo) {
        event.preventDefault();
        this.form.undo();
      }
    }
  }

  // -- results --------------------------------------------------------------------------------
  function summarize(results) {
    const topics = new Map();
    results.forEach((r) => {
      const t = topics.get(r.topic) || { slug: r.topic, title: r.topic_title, score: 0, total: 0 };
      t.score += r.score || 0;
      t.total += 1;
      topics.set(r.topic, t);
    });
    return Array.from(topics.values());
  }

  function scoreColor(fraction) {
    const colors = global.Palette ? global.Palette.CHUNK_COLORS : ["#E69F00", "", "#009E73", "", "", "#D55E00"];
    if (fraction >= 0.8) return colors[2];
    if (fraction >= 0.5) return colors[0];
    return colors[5];
  }

  function loadPlotly(url) {
    if (global.Plotly) return Promise.resolve(global.Plotly);
    if (!url) return Promise.reject(new Error("no chart library"));
    return new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.onload = () => resolve(global.Plotly);
      script.onerror = () => reject(new Error("chart library failed to load"));
      document.head.appendChild(script);
    });
  }

  function drawChart(node, topics, plotlyUrl) {
    const sorted = topics.slice().sort((a, b) => a.score / a.total - b.score / b.total);
    return loadPlotly(plotlyUrl).then((Plotly) => {
      const narrow = node.clientWidth < 520;
      const dark = document.documentElement.dataset.theme === "dark";
      const fg = dark ? "#e8e9ec" : "#1c1d21";
      const trace = {
        type: "bar",
        orientation: "h",
        x: sorted.map((t) => Math.round((100 * t.score) / t.total)),
        y: sorted.map((t) => shortTitle(t.title, narrow ? 18 : 40)),
        text: sorted.map((t) => `${Math.round(t.score * 10) / 10} / ${t.total}`),
        textposition: "outside",
        cliponaxis: false,
        marker: { color: sorted.map((t) => scoreColor(t.score / t.total)) },
        hovertemplate: "%{customdata}: %{x}%<extra></extra>",
        customdata: sorted.map((t) => t.title),
      };
      const layout = {
        margin: { l: 10, r: 48, t: 10, b: 40 },
        height: Math.max(160, 44 * sorted.length + 60),
        xaxis: { range: [0, 100], dtick: narrow ? 50 : 25, tickangle: 0, title: { text: "score (%)" },
          ticksuffix: "%", color: fg, gridcolor: dark ? "#30343c" : "#d9dbe0", fixedrange: true },
        yaxis: { automargin: true, color: fg, fixedrange: true, autorange: "reversed" },
        paper_bgcolor: "rgba(0,0,0,0)",
        plot_bgcolor: "rgba(0,0,0,0)",
        font: { family: "system-ui, sans-serif", size: 13, color: fg },
      };
      return Plotly.newPlot(node, [trace], layout, { displayModeBar: false, responsive: true, staticPlot: false });
    });
  }

  function renderResults(container, outcome, options) {
    const { results } = outcome;
    const total = results.length;
    const score = results.reduce((s, r) => s + (r.score || 0), 0);
    const topics = summarize(results);
    const missed = results.filter((r) => (r.selfAssessed ? r.score < 0.5 : !r.correct));
    container.textContent = "";
    const title = el("h2", { class: "results-title", tabindex: "-1", text: "Results" });
    const minutes = Math.floor(outcome.seconds / 60);
    const seconds = String(outcome.seconds % 60).padStart(2, "0");
    container.append(title);
    if (outcome.reason) container.appendChild(el("p", { class: "error-box", text: outcome.reason }));
    container.append(
      el("p", { class: "score" }, [
        el("strong", { text: `${Math.round(score * 10) / 10} / ${total}` }),
        ` (${total ? Math.round((100 * score) / total) : 0}%) in ${minutes}:${seconds}.`,
        results.some((r) => r.selfAssessed) ? " Explain questions count as you ticked them." : "",
      ]),
    );
    const chart = el("div", { class: "results-chart", role: "img", "aria-label": "Score per topic, as in the table below" });
    container.appendChild(chart);
    const table = el("table", { class: "results-table" }, [
      el("caption", { class: "visually-hidden", text: "Score per topic" }),
      el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: "Topic" }), el("th", { scope: "col", text: "Score" })])]),
      el("tbody", {}, topics.map((t) => el("tr", {}, [
        el("td", {}, [el("a", { href: `/lessons/${t.slug}`, text: t.title })]),
        el("td", { text: `${Math.round(t.score * 10) / 10} / ${t.total}` }),
      ]))),
    ]);
    container.appendChild(table);
    if (!options.embedded) {
      const draw = () => drawChart(chart, topics, options.plotlyUrl).catch(() => {
        chart.replaceChildren(el("p", { class: "muted", text: "The chart could not be drawn; the table has the same numbers." }));
      });
      draw();
      const redraw = () => (chart.isConnected ? draw() : document.removeEventListener("themechange", redraw));
      document.addEventListener("themechange", redraw);
    } else {
      chart.remove();
    }
    container.appendChild(el("h3", { text: missed.length ? "Questions to review" : "Nothing to review: every answer was right." }));
    if (missed.length) {
      container.appendChild(el("ul", { class: "missed" }, missed.map((r) => el("li", {}, [
        el("span", { text: r.skipped ? "(not answered) " : "" }),
        el("span", { text: r.prompt }), " ",
        el("a", { href: r.lesson_url, text: "read the lesson" }),
      ]))));
    }
    const again = el("button", { type: "button", class: "primary practise-again", text: "Practise these again" });
    again.disabled = !missed.length;
    again.addEventListener("click", () => options.onAgain(missed.map((r) => r.id)));
    const fresh = el("button", { type: "button", class: "new-quiz", text: options.embedded ? "Start again" : "New quiz" });
    fresh.addEventListener("click", () => options.onNew());
    container.appendChild(el("p", { class: "actions" }, [again, " ", fresh]));
    title.focus();
    return { topics, score, total, missed: missed.map((r) => r.id) };
  }

  // -- the /quiz page -------------------------------------------------------------------------
  function renderHistory(panel) {
    const body = panel.querySelector("[data-role=history-body]");
    const empty = panel.querySelector("[data-role=history-empty]");
    const clear = panel.querySelector("[data-role=history-clear]");
    const attempts = History.read();
    body.textContent = "";
    empty.hidden = attempts.length > 0;
    clear.disabled = attempts.length === 0;
    if (!attempts.length) return;
    const recent = attempts.slice(-8).reverse();
    body.appendChild(el("ul", { class: "history-list" }, recent.map((a) => {
      const when = new Date(a.at);
      const label = Number.isNaN(when.getTime()) ? "" : when.toLocaleString();
      return el("li", {}, [
        el("span", { class: "muted", text: `${label} · ` }),
        el("span", { text: `${a.mode === "mock" ? "Mock interview" : "Quiz"}: ${Math.round(a.score * 10) / 10} / ${a.total}` }),
      ]);
    })));
    const totals = new Map();
    attempts.forEach((a) => (a.topics || []).forEach((t) => {
      const sum = totals.get(t.slug) || { title: t.title, score: 0, total: 0 };
      sum.score += t.score;
      sum.total += t.total;
      totals.set(t.slug, sum);
    }));
    const weak = Array.from(totals.values()).filter((t) => t.total)
      .sort((a, b) => a.score / a.total - b.score / b.total).slice(0, 5);
    if (weak.length) {
      body.appendChild(el("p", { class: "history-weak-title", text: "Weakest topics so far:" }));
      body.appendChild(el("ul", { class: "history-weak" }, weak.map((t) =>
        el("li", { text: `${t.title}: ${Math.round((100 * t.score) / t.total)}% of ${t.total}` }))));
    }
  }

  function mountPage(app) {
    const setup = app.querySelector("[data-role=setup]");
    const run = app.querySelector("[data-role=run]");
    const resultsBox = app.querySelector("[data-role=results]");
    const form = app.querySelector("[data-role=setup-form]");
    const history = app.querySelector("[data-role=history]");
    const status = app.querySelector("[data-role=setup-status]");
    const all = form.querySelector("input[name=all]");
    const topicBoxes = Array.from(form.querySelectorAll("input[name=topics]"));
    const urls = { questions: app.dataset.questionsUrl, answer: app.dataset.answerUrl, plotly: app.dataset.plotlyUrl };
    let lastQuery = null;

    const picker = form.querySelector("[data-role=topic-picker]");
    const pickerCount = form.querySelector("[data-role=topic-count]");
    function showChosen() {
      const n = topicBoxes.filter((b) => b.checked).length;
      if (pickerCount) pickerCount.textContent = n ? `(${n} chosen)` : "";
    }
    all.addEventListener("change", () => {
      if (all.checked) topicBoxes.forEach((b) => { b.checked = false; });
      showChosen();
    });
    topicBoxes.forEach((b) => b.addEventListener("change", () => {
      all.checked = !topicBoxes.some((x) => x.checked);
      showChosen();
    }));
    showChosen();
    // On a phone the 21 lessons would push the start buttons two screens down: fold them.
    if (picker && global.matchMedia("(max-width: 640px)").matches && all.checked) picker.open = false;
    history.querySelector("[data-role=history-clear]").addEventListener("click", () => {
      History.clear();
      renderHistory(history);
      status.textContent = "History cleared.";
    });
    renderHistory(history);

    function query(mode) {
      const params = new URLSearchParams();
      const topics = topicBoxes.filter((b) => b.checked).map((b) => b.value);
      if (topics.length) params.set("topics", topics.join(","));
      const difficulty = form.querySelector("input[name=difficulty]:checked");
      if (difficulty && difficulty.value) params.set("difficulty", difficulty.value);
      const kinds = Array.from(form.querySelectorAll("input[name=kinds]:checked")).flatMap((b) => b.value.split(","));
      const allKinds = form.querySelectorAll("input[name=kinds]").length;
      if (kinds.length && form.querySelectorAll("input[name=kinds]:checked").length < allKinds) params.set("kinds", kinds.join(","));
      const length = form.querySelector("input[name=count]:checked");
      params.set("count", length ? length.value : "10");
      params.set("mode", mode);
      return params;
    }

    async function begin(params) {
      lastQuery = params;
      status.textContent = "Loading questions…";
      let data;
      try {
        data = await getJSON(`${urls.questions}?${params}`);
      } catch (err) {
        status.textContent = `Could not load questions: ${err.message}`;
        return;
      }
      if (!data.questions.length) {
        status.textContent = "No questions match these choices. Try more topics or any difficulty.";
        return;
      }
      status.textContent = "";
      app.classList.add("is-running");
      setup.hidden = true;
      resultsBox.hidden = true;
      run.hidden = false;
      const mode = params.get("mode");
      const runner = new Runner(run, {
        answerUrl: urls.answer,
        questionsUrl: urls.questions,
        onFinish: (outcome) => {
          run.hidden = true;
          resultsBox.hidden = false;
          const summary = renderResults(resultsBox, outcome, {
            plotlyUrl: urls.plotly,
            onAgain: (ids) => begin(again(ids, params)),
            onNew: () => { resultsBox.hidden = true; setup.hidden = false; app.classList.remove("is-running"); renderHistory(history); form.querySelector("button[type=submit]").focus(); },
          });
          History.add({ at: new Date().toISOString(), mode, total: summary.total, score: summary.score,
            topics: summary.topics, missed: summary.missed });
        },
      });
      runner.start(data.questions, data.time_limit_s);
    }

    // "Practise these again" asks for the missed ids, with the topics that selected them.
    function again(ids, previous) {
      const params = new URLSearchParams({ ids: ids.join(","), mode: "practice", count: String(ids.length) });
      if (previous.get("topics")) params.set("topics", previous.get("topics"));
      return params;
    }

    form.addEventListener("submit", (event) => { event.preventDefault(); begin(query("practice")); });
    app.querySelector("[data-role=start-mock]").addEventListener("click", () => begin(query("mock")));
    return { begin, lastQuery: () => lastQuery };
  }

  // -- a lesson's self-check ------------------------------------------------------------------
  function mountEmbed(section) {
    const slug = section.dataset.quizLesson;
    const count = section.dataset.quizCount || "5";
    const urls = { questions: section.dataset.questionsUrl || "/api/quiz/questions", answer: section.dataset.answerUrl || "/api/quiz/answer" };
    const box = el("div", { class: "quiz-embed-body" });
    section.replaceChildren(box); // the lesson's own "Self-check" heading introduces it
    async function begin(params) {
      box.textContent = "Loading questions…";
      try {
        const data = await getJSON(`${urls.questions}?${params}`);
        if (!data.questions.length) { box.textContent = "No questions for this lesson yet."; return; }
        const runner = new Runner(box, {
          answerUrl: urls.answer,
          questionsUrl: urls.questions,
          embedded: true,
          onFinish: (outcome) => renderResults(box, outcome, {
            embedded: true,
            onAgain: (ids) => begin(new URLSearchParams({ ids: ids.join(","), count: String(ids.length) })),
            onNew: () => begin(new URLSearchParams({ mode: "lesson", lesson: slug, count })),
          }),
        });
        runner.start(data.questions, null);
      } catch (err) {
        box.textContent = `Could not load the questions: ${err.message}`;
      }
    }
    begin(new URLSearchParams({ mode: "lesson", lesson: slug, count }));
  }

  function init() {
    const app = document.querySelector("[data-quiz-app]");
    if (app) global.QuizPage = mountPage(app);
    document.querySelectorAll(".quiz-embed[data-quiz-lesson]").forEach(mountEmbed);
  }

  global.Quiz = { parseNumber, History, Runner };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})(window);

// One run of questions (CollectiveLab.quiz.Runner): shows each question, sends the answer to be
// graded, shows the feedback, keeps the score, runs the clock of a mock interview, and offers a
// fresh copy of a question the server can no longer grade.
// Keys while a question is shown: 1-9 pick an option (or the next item of an ordering),
// Enter submits, N goes to the next question, Backspace undoes the last ordering pick.
(function (global) {
  "use strict";
  const Q = global.CollectiveLab.quiz;
  const { el, textOf, excerpt, shortTitle, topicOf, getJSON, postJSON } = Q;

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
      this.quit = el("button", { type: "button", class: "quiz-quit", text: this.embedded ? _("Stop") : _("End quiz") });
      this.card = el("article", { class: "question-card panel" });
      this.feedback = el("div", { class: "feedback", "aria-live": "polite" });
      this.error = el("p", { class: "quiz-error error-box", role: "alert", hidden: true });
      this.staleText = el("p");
      this.freshButton = el("button", { type: "button", class: "primary fresh-question", text: _("Continue with a fresh question") });
      this.stale = el("div", { class: "quiz-stale error-box", role: "alert", hidden: true }, [this.staleText, this.freshButton]);
      this.submitButton = el("button", { type: "button", class: "primary submit-answer" }, [_("Submit "), el("kbd", { text: "Enter" })]);
      this.nextButton = el("button", { type: "button", class: "next-question", hidden: true }, [_("Next "), el("kbd", { text: "N" })]);
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
        this.timer.textContent = _("Time left {time}", { time: `${m}:${s}` });
        this.timer.classList.toggle("low", left <= 60);
        if (left === 0) this.finish(true, _("Time is up."));
      };
      tick();
      this.timerId = global.setInterval(tick, 1000);
    }

    show() {
      const q = this.questions[this.index];
      const n = this.questions.length;
      this.progress.textContent = _("Question {n} of {total}", { n: this.index + 1, total: n });
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
        el("span", { class: "visually-hidden", text: _("Question {n}. ", { n: this.index + 1 }) }),
        el("span", { class: "badge topic", text: topicOf(q).title }), " ",
        el("span", { class: `badge level level-${q.difficulty}`, text: Q.difficultyLabel(q.difficulty) }),
        topicOf(q).slug !== q.topic ? el("span", { class: "muted home-lesson", text: _(" from “{title}”", { title: shortTitle(q.topic_title, 60) }) }) : null,
      ]);
      const form = { uid: `${this.uidBase}-${this.index}`, body: el("div", { class: "answer-area" }) };
      this.card.append(title, el("div", { class: "prompt", html: q.prompt_html }));
      if (q.figure) this.card.appendChild(Q.renderFigure(q.figure));
      const none = (q.options || []).find((o) => o.exclusive);
      const hint = none ? _("{hint} If none fits, choose “{none}”.", { hint: Q.KIND_HINTS[q.kind], none: textOf(none.html) }) : Q.KIND_HINTS[q.kind];
      this.card.appendChild(el("p", { class: "hint muted", text: hint }));
      this.card.appendChild(form.body);
      Q.renderAnswer(q, form);
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
        if (result.correct !== null) Q.Review.record(q.id, result.correct); // explain: on leaving
        const { box, heading } = Q.renderFeedback(result, q, (score) => { record.score = score; }, this.embedded);
        this.feedback.textContent = "";
        this.feedback.appendChild(box);
        this.submitButton.hidden = true;
        this.nextButton.hidden = false;
        this.nextButton.replaceChildren(
          this.index + 1 < this.questions.length ? _("Next ") : _("See results "), el("kbd", { text: "N" }));
        heading.focus({ preventScroll: true });
        heading.scrollIntoView({ block: "nearest", behavior: "smooth" });
      } catch (err) {
        if (err.stale) {
          this.showStale();
        } else {
          this.error.textContent = _("Could not check the answer: {error}", { error: err.message });
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
      this.staleText.textContent = _(
        "This answer cannot be checked: the question was made with another key (the server was restarted with a new secret, or another server handed it out). Your score so far is kept: {score} of {total}.",
        { score: Math.round(score * 10) / 10, total: done.length });
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
        this.staleText.textContent = _("Could not fetch a fresh question: {error}. Your score so far is kept.", { error: err.message });
        this.freshButton.disabled = false;
      } finally {
        this.busy = false;
      }
    }

    // An explain question is scored by the learner's ticks: schedule it once they leave it.
    reviewAssessed() {
      const record = this.results[this.index];
      if (!record || !record.selfAssessed || record.reviewed) return;
      record.reviewed = true;
      Q.Review.record(record.id, record.score >= 0.5);
    }

    next() {
      if (!this.answered) return;
      this.reviewAssessed();
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
      this.reviewAssessed();
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

  Q.Runner = Runner;
})(window);

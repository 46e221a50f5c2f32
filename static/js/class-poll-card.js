// A student's poll card (CollectiveLab.ClassPollCard): the teacher's question, asked the way the
// quiz page asks its kind (quiz-kinds.js), an answer the student may change until Reveal, and
// then the right answer, why, and how the room answered.
//
// The server grades: the card sends the answer as the quiz would (`poll_answer`) and learns
// nothing of the right one before `poll_result`.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const Q = CL.quiz;
  const CHOICE_KINDS = new Set(["single", "multiple", "predict"]);

  class ClassPollCard {
    constructor(card, link) {
      this.card = card;
      this.link = link;
      this.poll = null;
      this.form = null;
      this.sent = null; // the answer last recorded by the server
      const q = (role) => card.querySelector(`[data-role="${role}"]`);
      this.ui = {
        question: q("poll-question"), error: q("poll-error"), send: q("poll-send"), recorded: q("poll-recorded"),
        outcome: q("poll-outcome"), verdict: q("poll-verdict"), right: q("poll-right"), why: q("poll-why"),
        chart: q("poll-chart"), chartText: q("poll-chart-text"),
      };
      this.ui.send.addEventListener("click", () => this.send());
      document.addEventListener("keydown", (e) => this._key(e));
    }

    // 1-9 pick an option, as on the quiz page (the options show their numbers).
    _key(e) {
      if (this.card.hidden || !this.form || !this.form.pick || this.card.dataset.state === "revealed") return;
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || !/^[1-9]$/.test(e.key)) return;
      const tag = e.target && e.target.tagName;
      if (tag === "INPUT" && !["radio", "checkbox"].includes(e.target.type)) return;
      if (tag === "TEXTAREA" || tag === "SELECT" || (e.target && e.target.isContentEditable)) return;
      e.preventDefault();
      this.form.pick(Number(e.key));
    }

    // A poll opened (or was open when this page joined): ask it.
    onPoll(payload) {
      if (this.poll && this.poll.poll_id === payload.poll_id) return; // a rejoin: keep the answer on screen
      this.poll = payload;
      this.sent = null;
      const question = payload.question;
      const u = this.ui;
      const form = { uid: `poll-${String(payload.poll_id).replace(/\W/g, "")}`, body: Q.el("div", { class: "answer-area" }) };
      u.question.replaceChildren(Q.el("div", { class: "prompt", html: question.prompt_html || "" }));
      if (question.figure) u.question.appendChild(Q.renderFigure(question.figure));
      u.question.appendChild(Q.el("p", { class: "hint muted", text: Q.KIND_HINTS[question.kind] || "" }));
      u.question.appendChild(form.body);
      Q.renderAnswer(question, form);
      this.form = form;
      u.send.hidden = false;
      u.send.disabled = false;
      u.send.textContent = _("Send my answer");
      u.recorded.textContent = "";
      u.error.hidden = true;
      u.outcome.hidden = true;
      this.card.hidden = false;
      this.card.dataset.state = "open";
      this.card.dataset.pollId = payload.poll_id;
      if (payload.my_answer !== undefined && payload.my_answer !== null) this._restore(payload.my_answer);
      this.card.scrollIntoView({ block: "start" });
      this.card.focus({ preventScroll: true });
    }

    async send() {
      if (!this.poll || !this.form) return;
      const got = this.form.answer();
      if (got.error) { this._error(got.error); return; }
      this._error("");
      this.ui.send.disabled = true;
      const ack = await this.link.send("poll_answer", { poll_id: this.poll.poll_id, answer: got.value });
      this.ui.send.disabled = false;
      if (!ack.ok) { this._error(_("Your answer was not recorded: {error}", { error: ack.error })); return; }
      this.sent = got.value;
      this.ui.send.textContent = _("Change my answer");
      this.ui.recorded.textContent = _("Answer recorded. You can change it until the teacher reveals the answer.");
      this.card.dataset.state = "answered";
    }

    // The answer this member gave before a reload: checked again (choices), and said to be recorded.
    _restore(answer) {
      const chosen = CL.classTally.rightAnswers(answer);
      for (const input of this.ui.question.querySelectorAll("input[type=radio], input[type=checkbox]")) {
        input.checked = chosen.has(input.value);
      }
      this.sent = answer;
      this.ui.send.textContent = _("Change my answer");
      this.ui.recorded.textContent = _("Your answer is recorded. You can change it until the teacher reveals the answer.");
      this.card.dataset.state = "answered";
    }

    // The teacher revealed: the right answer, why, the room's answers; the question is closed.
    onResult(payload) {
      if (!this.poll || payload.poll_id !== this.poll.poll_id) return;
      const u = this.ui;
      const question = this.poll.question;
      if (this.form && this.form.lock) this.form.lock();
      u.send.hidden = true;
      u.error.hidden = true;
      u.recorded.textContent = this.sent === null ? _("You did not answer this one.") : "";
      this._mark(payload.correct);
      u.right.replaceChildren(Q.el("p", {}, [_("Right answer:"), " ",
        Q.el("strong", { text: CL.classTally.rightText(question, payload) })]));
      u.verdict.textContent = this._verdict(payload.correct);
      u.why.innerHTML = payload.why || ""; // the bank's sanitized HTML, as on the quiz page
      u.outcome.hidden = false;
      CL.classTally.draw(u.chart, u.chartText, question, payload.counts,
        { answered: payload.answered, correct: payload.correct, right: payload.right });
      this.card.dataset.state = "revealed";
      u.verdict.focus({ preventScroll: true });
    }

    // Whether this student's answer was the right one, for the kinds whose answer is a choice of
    // option ids (an order, a match or a number is for the server to judge).
    _verdict(correct) {
      if (this.sent === null || !CHOICE_KINDS.has(this.poll.question.kind)) return _("The answer");
      const mine = CL.classTally.rightAnswers(this.sent);
      const right = CL.classTally.rightAnswers(correct);
      if (!right.size) return _("The answer");
      const same = mine.size === right.size && [...mine].every((x) => right.has(x));
      return same ? _("✓ You had it right") : _("✗ Not quite: here is the answer");
    }

    // Mark the right options in the question itself, in words as well as colour.
    _mark(correct) {
      const right = CL.classTally.rightAnswers(correct);
      for (const label of this.ui.question.querySelectorAll("[data-option-id]")) {
        const isRight = right.has(label.dataset.optionId);
        label.classList.toggle("is-right", isRight);
        const text = label.querySelector(".option-text") || label;
        if (isRight) text.appendChild(Q.el("span", { class: "right-mark", text: _("✓ right answer") }));
      }
    }

    _error(text) {
      this.ui.error.textContent = text;
      this.ui.error.hidden = !text;
    }

    // The class ended, or another poll replaced this one.
    hide() { this.card.hidden = true; this.poll = null; }
  }

  CL.ClassPollCard = ClassPollCard;
})(window);

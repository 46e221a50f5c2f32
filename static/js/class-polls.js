// The teacher's polls (CollectiveLab.ClassPolls): pick a question from the bank by topic, or
// "predict the next step" of the run on screen; open it to the room; watch the live histogram
// of answers and how many answered; Reveal shows everyone the answer, why, and the distribution.
//
// The question list comes from the quiz's JSON API (the same bank as /quiz); the poll itself is
// drawn again by the server from the question's id, which grades every answer. Nothing here
// knows the answer before `poll_result`.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const PREDICT = "predict-next-step";
  const POLLED_KINDS = "single,multiple,numeric,predict,order,match"; // the server grades these

  function el(tag, attrs, children) { return CL.quiz.el(tag, attrs, children); }

  class ClassPolls {
    // urls: {topics_url, questions_url}
    constructor(panel, link, urls) {
      this.panel = panel;
      this.link = link;
      this.urls = urls;
      this.poll = null; // {poll_id, question}
      this.members = 0;
      const q = (role) => panel.querySelector(`[data-role="${role}"]`);
      this.ui = {
        pick: q("poll-pick"), topic: q("poll-topic"), count: q("poll-count"), predict: q("poll-predict"),
        status: q("poll-status"), list: q("poll-list"), live: q("poll-live"), title: q("poll-title"),
        prompt: q("poll-prompt"), answered: q("poll-answered"), chart: q("poll-chart"),
        chartText: q("poll-chart-text"), result: q("poll-result"), reveal: q("poll-reveal"),
      };
      this.ui.pick.addEventListener("submit", (e) => { e.preventDefault(); this.list(); });
      this.ui.predict.addEventListener("click", () => this.open(PREDICT));
      this.ui.reveal.addEventListener("click", () => this.reveal());
      this.topicsLoaded = false;
    }

    async loadTopics() {
      if (this.topicsLoaded) return;
      this.topicsLoaded = true;
      try {
        const data = await CL.quiz.getJSON(this.urls.topics_url);
        for (const t of data.topics.filter((x) => x.count)) {
          this.ui.topic.appendChild(new Option(`${t.title} (${t.count})`, t.slug));
        }
      } catch (err) {
        this.topicsLoaded = false;
        this._status(_("Could not load the topics: {error}", { error: err.message }));
      }
    }

    async list() {
      const query = new URLSearchParams({ count: this.ui.count.value, kinds: POLLED_KINDS });
      if (this.ui.topic.value) query.set("topics", this.ui.topic.value);
      this._status(_("Loading questions…"));
      try {
        const data = await CL.quiz.getJSON(`${this.urls.questions_url}?${query}`);
        this.ui.list.replaceChildren(...data.questions.map((q) => this._item(q)));
        this._status(_("{n} questions. Open one to ask the room.", { n: data.questions.length }));
      } catch (err) {
        this._status(_("Could not load questions: {error}", { error: err.message }));
      }
    }

    _item(question) {
      const open = el("button", { type: "button", class: "primary", text: _("Open") });
      open.setAttribute("aria-label", _("Open this question: {text}", { text: CL.quiz.excerpt(CL.quiz.textOf(question.prompt_html), 80) }));
      open.addEventListener("click", () => this.open(question.id));
      return el("li", { class: "poll-item", "data-question-id": question.id, "data-kind": question.kind }, [
        el("span", { class: "badge", text: question.kind }), " ",
        el("span", { class: "poll-item-text", text: CL.quiz.excerpt(CL.quiz.textOf(question.prompt_html), 160) }), " ",
        open,
      ]);
    }

    async open(questionId) {
      this._status(_("Opening…"));
      const ack = await this.link.teach("poll_open", { question_id: questionId });
      // The note says which run a predict-next-step question is about.
      if (ack.ok) this._status(ack.note ? _("Poll open: {note}.", { note: ack.note }) : _("Poll open."));
      else this._status(_("Could not open the poll: {error}", { error: ack.error }));
    }

    async reveal() {
      if (!this.poll) return;
      this.ui.reveal.disabled = true;
      const ack = await this.link.teach("poll_reveal", { poll_id: this.poll.poll_id });
      if (!ack.ok) {
        this.ui.reveal.disabled = false;
        this._status(_("Could not reveal: {error}", { error: ack.error }));
      }
    }

    setMembers(count) { this.members = count; }

    // A poll opened (by this device or another of the teacher's): show it with an empty tally.
    onPoll(payload) {
      this.poll = payload;
      const u = this.ui;
      const question = payload.question;
      u.live.hidden = false;
      u.title.textContent = question.id === PREDICT || question.kind === "predict"
        ? _("Open question: predict the next step") : _("Open question");
      u.prompt.innerHTML = question.prompt_html || ""; // server-sanitized, as on the quiz page
      if (question.figure) u.prompt.appendChild(CL.quiz.renderFigure(question.figure));
      u.result.hidden = true;
      u.result.textContent = "";
      u.reveal.hidden = false;
      u.reveal.disabled = false;
      u.live.dataset.revealed = "no";
      this.tallySeq = 0;
      this.onTally({ poll_id: payload.poll_id, counts: {}, answered: 0, members: this.members });
      u.live.scrollIntoView({ block: "nearest" });
    }

    // Tallies from two processes may arrive out of order: the larger seq is the newer.
    onTally(payload) {
      if (!this.poll || payload.poll_id !== this.poll.poll_id) return;
      if (typeof payload.seq === "number" && payload.seq < (this.tallySeq || 0)) return;
      this.tallySeq = payload.seq || 0;
      const u = this.ui;
      if (typeof payload.members === "number") this.members = payload.members;
      u.answered.textContent = _("{answered} of {members} answered", { answered: payload.answered, members: this.members });
      u.live.dataset.answered = String(payload.answered);
      CL.classTally.draw(u.chart, u.chartText, this.poll.question, payload.counts,
        { answered: payload.answered, members: this.members });
    }

    onResult(payload) {
      if (!this.poll || payload.poll_id !== this.poll.poll_id) return;
      const u = this.ui;
      const question = this.poll.question;
      u.reveal.hidden = true;
      u.result.hidden = false;
      u.result.replaceChildren(
        el("p", { class: "verdict ok" }, [_("Right answer:"), " ", el("strong", { text: CL.classTally.rightText(question, payload) })]),
        el("div", { class: "explanation", html: payload.why || "" }), // the bank's sanitized HTML
      );
      CL.classTally.draw(u.chart, u.chartText, question, payload.counts,
        { answered: payload.answered, members: this.members, correct: payload.correct, right: payload.right });
      u.live.dataset.revealed = "yes";
    }

    _status(text) { this.ui.status.textContent = text; }
  }

  CL.ClassPolls = ClassPolls;
})(window);

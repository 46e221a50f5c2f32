// The quiz: fetch questions (no answers in them), collect an answer, let the server grade it,
// show why, and keep a history in this browser (localStorage). Used by /quiz and by lesson
// self-checks (<section class="quiz-embed" data-quiz-lesson="slug">). This file mounts the two;
// quiz-base.js lists the others, which it needs loaded first.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const Q = CL.quiz;
  const { el, getJSON, Runner, History, renderResults, renderHistory } = Q;

  // The setup form's topic picker: "all topics" and single topics exclude each other, and the
  // count of chosen topics shows in the picker's summary.
  function bindTopicPicker(form, all, topicBoxes) {
    const picker = form.querySelector("[data-role=topic-picker]");
    const pickerCount = form.querySelector("[data-role=topic-count]");
    function showChosen() {
      const n = topicBoxes.filter((b) => b.checked).length;
      if (pickerCount) pickerCount.textContent = n ? _("({n} chosen)", { n }) : "";
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
  }

  // The question query the setup form asks for, in `mode` ("practice" or "mock").
  function formQuery(form, topicBoxes, mode) {
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

  // "Practise these again" asks for the missed ids, with the topics that selected them.
  function againQuery(ids, previous) {
    const params = new URLSearchParams({ ids: ids.join(","), mode: "practice", count: String(ids.length) });
    if (previous.get("topics")) params.set("topics", previous.get("topics"));
    return params;
  }

  // The history panel, and its button that forgets every attempt.
  function bindHistory(history, status) {
    history.querySelector("[data-role=history-clear]").addEventListener("click", () => {
      History.clear();
      renderHistory(history);
      status.textContent = _("History cleared.");
    });
    renderHistory(history);
  }

  // The spaced-review panel: how many questions are due, a run of exactly those, and a button
  // that forgets the list. Returns the function that shows the current counts.
  function bindReview(panel, startReview, status) {
    const q = (role) => panel.querySelector(`[data-role=${role}]`);
    function show() {
      const { due, later, next } = Q.Review.summary();
      const dueText = { 0: _("No questions due for review"), 1: _("1 question due for review") }[due];
      q("review-due").textContent = dueText || _("{n} questions due for review", { n: due });
      const when = later ? Q.Review.when(next) : "";
      const laterText = later === 1
        ? _("1 question scheduled later; the next is due {when}.", { when })
        : _("{n} questions scheduled later; the next is due {when}.", { n: later, when });
      q("review-later").textContent = later ? laterText : "";
      q("review-start").disabled = !due;
      q("review-forget").disabled = !(due + later);
    }
    q("review-start").addEventListener("click", () => startReview(Q.Review.due()));
    q("review-forget").addEventListener("click", () => {
      Q.Review.forget();
      show();
      status.textContent = _("Review list forgotten.");
    });
    show();
    return show;
  }

  // The /quiz page: set up a run, run it, show the results, remember the attempt.
  function mountPage(app) {
    const q = (role) => app.querySelector(`[data-role=${role}]`);
    const setup = q("setup"), run = q("run"), resultsBox = q("results"), form = q("setup-form");
    const history = q("history"), status = q("setup-status");
    const all = form.querySelector("input[name=all]");
    const topicBoxes = Array.from(form.querySelectorAll("input[name=topics]"));
    const urls = { questions: app.dataset.questionsUrl, answer: app.dataset.answerUrl, plotly: app.dataset.plotlyUrl,
      review: app.dataset.reviewUrl };
    bindTopicPicker(form, all, topicBoxes);
    bindHistory(history, status);
    // Review asks for exactly the due ids; ids the bank no longer has are dropped from the list.
    const showReview = bindReview(q("review"), (ids) => begin(new URLSearchParams({ ids: ids.join(","), mode: "review" }), urls.review), status);

    function showSetup() {
      resultsBox.hidden = true;
      setup.hidden = false;
      app.classList.remove("is-running");
      renderHistory(history);
      showReview();
      form.querySelector("button[type=submit]").focus();
    }

    function finished(outcome, params) {
      run.hidden = true;
      resultsBox.hidden = false;
      const summary = renderResults(resultsBox, outcome, {
        plotlyUrl: urls.plotly, onAgain: (ids) => begin(againQuery(ids, params)), onNew: showSetup,
      });
      History.add({ at: new Date().toISOString(), mode: params.get("mode"), total: summary.total, score: summary.score,
        topics: summary.topics, missed: summary.missed });
    }

    async function begin(params, url = urls.questions) {
      status.textContent = _("Loading questions…");
      let data;
      try {
        data = await getJSON(`${url}?${params}`);
      } catch (err) {
        status.textContent = _("Could not load questions: {error}", { error: err.message });
        return;
      }
      if (data.unknown && data.unknown.length) {
        Q.Review.drop(data.unknown);
        showReview();
      }
      if (!data.questions.length) {
        if (data.mode === "review") {
          status.textContent = _("The questions due are no longer in the bank; they left your review list.");
          return;
        }
        status.textContent = _("No questions match these choices. Try more topics or any difficulty.");
        return;
      }
      status.textContent = "";
      app.classList.add("is-running");
      setup.hidden = true;
      resultsBox.hidden = true;
      run.hidden = false;
      const runner = new Runner(run, {
        answerUrl: urls.answer, questionsUrl: urls.questions, onFinish: (outcome) => finished(outcome, params),
      });
      runner.start(data.questions, data.time_limit_s);
    }

    form.addEventListener("submit", (event) => { event.preventDefault(); begin(formQuery(form, topicBoxes, "practice")); });
    q("start-mock").addEventListener("click", () => begin(formQuery(form, topicBoxes, "mock")));
    return { begin };
  }

  // A lesson's self-check: its questions in the lesson, no chart, no history.
  function mountEmbed(section) {
    const slug = section.dataset.quizLesson;
    const count = section.dataset.quizCount || "5";
    const urls = { questions: section.dataset.questionsUrl || "/api/quiz/questions", answer: section.dataset.answerUrl || "/api/quiz/answer" };
    const box = el("div", { class: "quiz-embed-body" });
    section.replaceChildren(box); // the lesson's own "Self-check" heading introduces it
    async function begin(params) {
      box.textContent = _("Loading questions…");
      try {
        const data = await getJSON(`${urls.questions}?${params}`);
        if (!data.questions.length) { box.textContent = _("No questions for this lesson yet."); return; }
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
        box.textContent = _("Could not load the questions: {error}", { error: err.message });
      }
    }
    begin(new URLSearchParams({ mode: "lesson", lesson: slug, count }));
  }

  function init() {
    const app = document.querySelector("[data-quiz-app]");
    if (app) CL.quizPage = mountPage(app);
    document.querySelectorAll(".quiz-embed[data-quiz-lesson]").forEach(mountEmbed);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})(window);

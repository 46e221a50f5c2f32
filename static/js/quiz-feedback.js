// The feedback on a graded answer (CollectiveLab.quiz.renderFeedback): right or not, and why,
// in the form of the question's kind; for an explain question, the model answer and a checklist
// the learner scores themselves against.
(function (global) {
  "use strict";
  const Q = global.CollectiveLab.quiz;
  const el = Q.el;

  function verdict(result) {
    if (result.correct === null) {
      return el("p", { class: "verdict self", text: _("Compare your answer with the model answer, then tick what you covered.") });
    }
    return el("p", { class: `verdict ${result.correct ? "ok" : "bad"}` }, [
      el("span", { "aria-hidden": "true", text: result.correct ? "✓ " : "✗ " }),
      result.correct ? _("Right.") : _("Not quite."),
    ]);
  }

  function optionFeedback(result, q) {
    const order = (q.options || []).map((o) => o.id);
    const options = result.options.slice().sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    return el("ul", { class: "option-feedback" }, options.map((o) => {
      const marks = [];
      if (o.correct) marks.push(_("correct"));
      if (o.chosen) marks.push(_("your choice"));
      return el("li", { class: o.correct ? "is-correct" : o.chosen ? "is-wrong" : "" }, [
        el("span", { class: "mark", "aria-hidden": "true", text: o.correct ? "✓" : o.chosen ? "✗" : "·" }),
        el("div", {}, [
          el("span", { class: "option-text", html: o.html }),
          marks.length ? el("span", { class: "tags", text: _(" ({marks})", { marks: marks.join(_(", ")) }) }) : null,
          o.why_html ? el("div", { class: "why", html: o.why_html }) : null,
        ]),
      ]);
    }));
  }

  function numericFeedback(result) {
    return [
      el("p", {}, [
        _("Your answer: "), el("strong", { text: `${result.answer} ${result.unit}` }),
        _(" · expected {expected} ({tolerance} accepted)", { expected: result.expected_text, tolerance: result.tolerance }),
      ]),
      el("p", { class: "formula-title", text: _("How it is computed (the app's cost model):") }),
      el("pre", { class: "formula" }, [result.formula.join("\n")]),
    ];
  }

  function orderFeedback(result) {
    return [
      el("p", { text: _("{right} of {total} in the right place. The right order:", { right: result.positions_right, total: result.order.length }) }),
      el("ol", { class: "order-feedback" }, result.order.map((item) =>
        el("li", { class: item.placed_right ? "is-correct" : "is-wrong" }, [
          el("span", { html: item.html }),
          el("span", { class: "tags", text: item.placed_right ? _(" (you had it here)") : _(" (you placed something else here)") }),
        ]))),
    ];
  }

  function matchFeedback(result) {
    return [el("ul", { class: "option-feedback" }, result.pairs.map((p) =>
      el("li", { class: p.correct ? "is-correct" : "is-wrong" }, [
        el("span", { class: "mark", "aria-hidden": "true", text: p.correct ? "✓" : "✗" }),
        el("div", {}, [
          el("span", { html: p.left_html }), " → ", el("strong", { html: p.right_html }),
          p.correct ? null : el("span", { class: "tags" }, [_(" (you chose: "), el("span", { html: p.chosen_html }), _(")")]),
          p.why_html ? el("div", { class: "why", html: p.why_html }) : null,
        ]),
      ])))];
  }

  // The model answer, and a checklist whose ticks are the learner's own score.
  function explainFeedback(result, q, onSelfScore, embedded) {
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
    return [
      el(embedded ? "h5" : "h4", { text: _("Model answer") }),
      el("div", { class: "model-answer", html: result.model_answer_html }),
      el(embedded ? "h5" : "h4", { text: _("Did your answer cover these?") }),
      list,
    ];
  }

  // What each kind adds after the verdict and the options.
  const KIND_FEEDBACK = {
    predict: (result) => [el("ul", { class: "steps" }, result.steps.map((s) => el("li", { text: s })))],
    numeric: numericFeedback,
    order: orderFeedback,
    match: matchFeedback,
    explain: explainFeedback,
  };

  // The feedback box of graded `result` for question `q`, and its heading (to take the focus).
  function renderFeedback(result, q, onSelfScore, embedded) {
    const box = el("div", { class: "feedback-body" });
    const heading = el(embedded ? "h4" : "h3", { tabindex: "-1", class: "feedback-title", text: _("Feedback") });
    box.append(heading, verdict(result));
    if (result.options || q.kind === "predict") box.appendChild(optionFeedback(result, q));
    const more = KIND_FEEDBACK[q.kind];
    if (more) box.append(...more(result, q, onSelfScore, embedded));
    if (result.explanation_html) box.appendChild(el("div", { class: "explanation", html: result.explanation_html }));
    box.appendChild(el("p", { class: "lesson-link" }, [
      _("Read the lesson: "), el("a", { href: result.lesson_url, text: result.topic_title }),
    ]));
    return { box, heading };
  }

  Q.renderFeedback = renderFeedback;
})(window);

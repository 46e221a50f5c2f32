// The room's answers to a poll as a histogram (CollectiveLab.classTally): the teacher's live
// tally and everyone's result after Reveal, with a sentence beside it that says the same in words.
//
// `counts` maps an answer to how many chose it (app/classroom/polls.py): an option's opaque id for
// choices and predictions, which the question's public form turns back into its text; a number
// typed (to 4 significant digits); "right" or "wrong" for an order or a match. After Reveal the
// right answers' bars are marked with ✓ in their label as well as in colour.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const LABEL_CHARS = 48;
  const NARROW_PX = 480; // below this a bar is labelled with its option's number only

  function plain(html) {
    const div = document.createElement("div");
    div.innerHTML = html || "";
    return (div.textContent || "").replace(/\s+/g, " ").trim();
  }

  function short(text) { return text.length > LABEL_CHARS ? `${text.slice(0, LABEL_CHARS - 1)}…` : text; }

  // What each answer id of `question` reads as, in the order the question shows them.
  function answerLabels(question) {
    const labels = new Map();
    for (const o of question.options || question.items || question.right || []) labels.set(o.id, plain(o.html));
    return labels;
  }

  const WHOLE_ANSWER_KINDS = new Set(["order", "match"]); // tallied as "right" / "wrong"

  // The ids (or values) a poll result says are right, as strings.
  function rightAnswers(correct) {
    if (correct === null || correct === undefined) return new Set();
    if (Array.isArray(correct)) return new Set(correct.map(String));
    if (typeof correct === "object") return new Set(Object.values(correct).map(String));
    return new Set([String(correct)]);
  }

  // The bars: every option of the question (none chosen is a 0), then any other answer given.
  function bars(question, counts, correct) {
    const whole = WHOLE_ANSWER_KINDS.has(question.kind);
    const labels = whole ? new Map([["right", _("right")], ["wrong", _("wrong")]]) : answerLabels(question);
    const right = whole ? new Set(correct === undefined ? [] : ["right"]) : rightAnswers(correct);
    const given = new Map(Object.entries(counts || {}));
    const keys = [...labels.keys(), ...[...given.keys()].filter((k) => !labels.has(k)).sort(
      (a, b) => Number(a) - Number(b) || a.localeCompare(b))];
    // Options are numbered as the question shows them (one draw per poll: the same for all).
    return keys.map((key, i) => ({
      key, label: labels.get(key) || key, n: Number(given.get(key)) || 0, right: right.has(key),
      number: labels.has(key) && !whole ? String(i + 1) : "",
    }));
  }

  // The right answer of a poll result in words: the options' texts, an order, pairs, or a value.
  function rightText(question, result) {
    const correct = result.correct;
    const detail = result.detail || {};
    if (detail.expected_text) {
      return _("{value} {unit} ({tolerance} accepted)",
        { value: detail.expected_text, unit: detail.unit || "", tolerance: detail.tolerance }).replace(/ {2,}/g, " ").trim();
    }
    const labels = answerLabels(question);
    const name = (id) => labels.get(String(id)) || String(id);
    if (Array.isArray(correct)) {
      return question.kind === "order" ? correct.map((id, i) => `${i + 1}. ${name(id)}`).join("  ")
        : correct.map(name).join("; ");
    }
    if (correct && typeof correct === "object") {
      const left = new Map((question.left || []).map((o) => [o.id, plain(o.html)]));
      return Object.entries(correct).map(([l, r]) => `${left.get(l) || l} → ${name(r)}`).join("; ");
    }
    return correct === null || correct === undefined ? "" : name(correct);
  }

  // Who answered, in one clause: with or without the room's size, and how many were right.
  function whoAnswered(answered, members, right) {
    const v = { answered, members, right };
    if (typeof right === "number") {
      return members ? _("{answered} of {members} answered, {right} of them right", v)
        : _("{answered} answered, {right} of them right", v);
    }
    return members ? _("{answered} of {members} answered", v) : _("{answered} answered", v);
  }

  function sentence(rows, answered, members, right) {
    const who = whoAnswered(answered, members, right);
    if (!rows.length || !answered) return _("{who}.", { who });
    const each = rows.map((r) => {
      const v = { label: short(r.label), n: r.n };
      const said = r.right ? _("“{label}” (right): {n}", v) : _("“{label}”: {n}", v);
      return r.number ? `${r.number} ${said}` : said;
    }).join(_("; "));
    return _("{who}. {each}.", { who, each });
  }

  function barLabel(row, narrow) {
    const text = narrow && row.number ? row.number : `${row.number ? `${row.number}. ` : ""}${short(row.label)}`;
    return `${row.right ? "✓ " : ""}${text}`;
  }

  // Draw the histogram of `counts` in `chart` and write its sentence in `text`.
  // options: {answered, members, correct and right (after Reveal, else undefined)}
  function draw(chart, text, question, counts, options) {
    const rows = bars(question, counts, options.correct);
    const answered = options.answered ?? rows.reduce((sum, r) => sum + r.n, 0);
    text.textContent = sentence(rows, answered, options.members, options.right);
    if (!global.Plotly) return;
    const t = CL.chartTheme();
    const shown = rows.slice().reverse(); // Plotly draws the first category at the bottom
    const most = Math.max(1, ...rows.map((r) => r.n));
    const trace = {
      type: "bar", orientation: "h",
      x: shown.map((r) => r.n),
      y: shown.map((r) => barLabel(r, chart.clientWidth < NARROW_PX)),
      marker: { color: shown.map((r) => (r.right ? CL.palette.chunkColor(2, t.name) : t.accent)) },
      text: shown.map((r) => String(r.n)), textposition: "auto", hoverinfo: "x+y",
    };
    const layout = CL.chartLayout(t, {
      margin: { l: 10, r: 10, t: 6, b: 30 }, height: Math.max(140, 44 * rows.length + 50), showlegend: false,
      dragmode: false, xaxis: { rangemode: "tozero", dtick: most <= 10 ? 1 : undefined, title: { text: _("students") } },
      yaxis: { automargin: true, type: "category" }, // "1", "2": option numbers, not values
    });
    global.Plotly.react(chart, [trace], layout, CL.CHART_CONFIG);
  }

  CL.classTally = { draw, bars, answerLabels, rightAnswers, rightText, plain };
})(window);

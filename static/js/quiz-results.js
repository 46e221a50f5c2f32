// The end of a run, and what this browser remembers: the results (score, a chart and a table per
// topic, the questions to review) and the history of attempts kept in localStorage.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const Q = CL.quiz;
  const { el, shortTitle } = Q;
  const STORE_KEY = "collective-lab.quiz.history.v1";
  const HISTORY_LIMIT = 30;

  // The attempts kept in this browser, the latest HISTORY_LIMIT of them.
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

  // Score and count per topic, in the order the topics first came.
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

  // Green from 80 %, orange from 50 %, vermillion below: Okabe & Ito's, from the palette.
  function scoreColor(fraction) {
    const colors = CL.palette.CHUNK_COLORS;
    if (fraction >= 0.8) return colors[2];
    if (fraction >= 0.5) return colors[0];
    return colors[5];
  }

  // Plotly, loaded on first use: the quiz page needs it only for the results chart.
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

  // The score per topic as bars, weakest first, in the shared chart theme.
  function drawChart(node, topics, plotlyUrl) {
    const sorted = topics.slice().sort((a, b) => a.score / a.total - b.score / b.total);
    return loadPlotly(plotlyUrl).then((Plotly) => {
      const narrow = node.clientWidth < 520;
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
      const layout = CL.chartLayout(CL.chartTheme(), {
        margin: { l: 10, r: 48, t: 10, b: 40 },
        height: Math.max(160, 44 * sorted.length + 60),
        xaxis: { range: [0, 100], dtick: narrow ? 50 : 25, tickangle: 0, title: { text: _("score (%)") },
          ticksuffix: "%", fixedrange: true },
        yaxis: { automargin: true, fixedrange: true, autorange: "reversed" },
      });
      layout.font.size = 13;
      return Plotly.newPlot(node, [trace], layout, CL.CHART_CONFIG);
    });
  }

  function renderResults(container, outcome, options) {
    const { results } = outcome;
    const total = results.length;
    const score = results.reduce((s, r) => s + (r.score || 0), 0);
    const topics = summarize(results);
    const missed = results.filter((r) => (r.selfAssessed ? r.score < 0.5 : !r.correct));
    container.textContent = "";
    const title = el("h2", { class: "results-title", tabindex: "-1", text: _("Results") });
    const minutes = Math.floor(outcome.seconds / 60);
    const seconds = String(outcome.seconds % 60).padStart(2, "0");
    container.append(title);
    if (outcome.reason) container.appendChild(el("p", { class: "error-box", text: outcome.reason }));
    container.append(
      el("p", { class: "score" }, [
        el("strong", { text: `${Math.round(score * 10) / 10} / ${total}` }),
        _(" ({percent}%) in {time}.", { percent: total ? Math.round((100 * score) / total) : 0, time: `${minutes}:${seconds}` }),
        results.some((r) => r.selfAssessed) ? _(" Explain questions count as you ticked them.") : "",
      ]),
    );
    const chart = el("div", { class: "results-chart", role: "img", "aria-label": _("Score per topic, as in the table below") });
    container.appendChild(chart);
    const table = el("table", { class: "results-table" }, [
      el("caption", { class: "visually-hidden", text: _("Score per topic") }),
      el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: _("Topic") }), el("th", { scope: "col", text: _("Score") })])]),
      el("tbody", {}, topics.map((t) => el("tr", {}, [
        el("td", {}, [el("a", { href: `/lessons/${t.slug}`, text: t.title })]),
        el("td", { text: `${Math.round(t.score * 10) / 10} / ${t.total}` }),
      ]))),
    ]);
    container.appendChild(table);
    if (!options.embedded) {
      const draw = () => drawChart(chart, topics, options.plotlyUrl).catch(() => {
        chart.replaceChildren(el("p", { class: "muted", text: _("The chart could not be drawn; the table has the same numbers.") }));
      });
      draw();
      const redraw = () => (chart.isConnected ? draw() : document.removeEventListener("themechange", redraw));
      document.addEventListener("themechange", redraw);
    } else {
      chart.remove();
    }
    container.appendChild(el("h3", { text: missed.length ? _("Questions to review") : _("Nothing to review: every answer was right.") }));
    if (missed.length) {
      container.appendChild(el("ul", { class: "missed" }, missed.map((r) => el("li", {}, [
        el("span", { text: r.skipped ? _("(not answered) ") : "" }),
        el("span", { text: r.prompt }), " ",
        el("a", { href: r.lesson_url, text: _("read the lesson") }),
      ]))));
    }
    const again = el("button", { type: "button", class: "primary practise-again", text: _("Practise these again") });
    again.disabled = !missed.length;
    again.addEventListener("click", () => options.onAgain(missed.map((r) => r.id)));
    const fresh = el("button", { type: "button", class: "new-quiz", text: options.embedded ? _("Start again") : _("New quiz") });
    fresh.addEventListener("click", () => options.onNew());
    container.appendChild(el("p", { class: "actions" }, [again, " ", fresh]));
    title.focus();
    return { topics, score, total, missed: missed.map((r) => r.id) };
  }

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
      const label = Number.isNaN(when.getTime()) ? "" : when.toLocaleString(document.documentElement.lang || undefined);
      return el("li", {}, [
        el("span", { class: "muted", text: `${label} · ` }),
        el("span", { text: _("{mode}: {score} / {total}", { mode: { mock: _("Mock interview"), review: _("Review") }[a.mode] || _("Quiz"), score: Math.round(a.score * 10) / 10, total: a.total }) }),
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
      body.appendChild(el("p", { class: "history-weak-title", text: _("Weakest topics so far:") }));
      body.appendChild(el("ul", { class: "history-weak" }, weak.map((t) =>
        el("li", { text: _("{title}: {percent}% of {total}", { title: t.title, percent: Math.round((100 * t.score) / t.total), total: t.total }) }))));
    }
  }

  Object.assign(Q, { History, renderResults, renderHistory });
})(window);

// A design question: the written answer (kept in localStorage), the rubric ticked by the learner,
// the numeric criteria checked by the server's cost model, the hang triage graded by the server,
// and the model answer fetched only when asked for.
(function () {
  "use strict";
  const root = document.querySelector('[data-role="design"]');
  if (!root) return;
  const $ = (sel) => root.querySelector(sel);
  const storeKey = "collective-lab:toolkit:" + root.dataset.prompt;

  function send(url, body) {
    const init = body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    };
    return fetch(url, init).then((r) => r.json().then((data) => ({ ok: r.ok, data })));
  }

  function para(text, cls) {
    const p = document.createElement("p");
    if (cls) p.className = cls;
    p.textContent = text;
    return p;
  }

  // -- the written answer, kept across visits ----------------------------------------------
  const written = $('[data-role="written"]');
  try { written.value = localStorage.getItem(storeKey) || ""; } catch (e) { /* private mode */ }
  written.addEventListener("input", () => {
    try { localStorage.setItem(storeKey, written.value); } catch (e) { /* private mode */ }
  });

  // -- the rubric ----------------------------------------------------------------------------
  const rubric = $('[data-role="rubric"]');
  const boxes = Array.from(rubric.querySelectorAll('[data-role="criterion"]'));
  function score() {
    const ticked = boxes.filter((b) => b.checked).length;
    $('[data-role="score"]').textContent = _("{ticked} of {total} points.", { ticked, total: boxes.length });
  }
  boxes.forEach((b) => b.addEventListener("change", score));
  $('[data-role="assess"]').addEventListener("click", () => {
    rubric.hidden = false;
    rubric.focus();
  });

  $('[data-role="show-model"]').addEventListener("click", () => {
    send(root.dataset.answerUrl).then(({ ok, data }) => {
      if (!ok) return;
      const body = $('[data-role="model-body"]');
      body.replaceChildren(...data.model_answer.map((t) => para(t)));
      if (data.model_layout) body.appendChild(criteriaList(data.model_layout.criteria));
      const box = $('[data-role="model-answer"]');
      box.hidden = false;
      box.focus();
    });
  });

  // -- numeric criteria from the cost model ----------------------------------------------------
  function criteriaList(criteria) {
    const ul = document.createElement("ul");
    ul.className = "criteria";
    for (const c of criteria) {
      const li = document.createElement("li");
      li.className = c.ok ? "ok" : "bad";
      const verdict = c.ok ? _("✓ Meets: {label}", { label: c.label }) : _("✗ Misses: {label}", { label: c.label });
      li.append(para(verdict), para(c.detail, "muted"));
      ul.appendChild(li);
    }
    return ul;
  }

  function showChecks(criteria) {
    const byId = Object.fromEntries(criteria.map((c) => [c.id, c]));
    rubric.querySelectorAll('[data-role="check-result"]').forEach((span) => {
      const found = span.dataset.checks.split(",").map((id) => byId[id]).filter(Boolean);
      if (!found.length) { span.textContent = ""; return; }
      const ok = found.every((c) => c.ok);
      span.className = "rubric-check " + (ok ? "ok" : "bad");
      const details = found.map((c) => c.detail).join("; ");
      span.textContent = ok ? _("Your layout meets this: {details}", { details })
        : _("Your layout misses this: {details}", { details });
    });
  }

  const layoutForm = $('[data-role="layout-form"]');
  if (layoutForm) {
    layoutForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const f = new FormData(layoutForm);
      const body = {};
      for (const name of ["tp", "pp", "dp", "zero"]) {
        const n = Number(f.get(name));
        body[name] = Number.isInteger(n) ? n : f.get(name);
      }
      const out = $('[data-role="layout-result"]');
      send(layoutForm.dataset.url, body).then(({ ok, data }) => {
        if (!ok) { out.replaceChildren(para(data.error, "error-box")); return; }
        out.replaceChildren(criteriaList(data.criteria));
        if (data.communication) out.appendChild(para(data.communication.interpretation));
        showChecks(data.criteria);
      });
    });
  }

  // -- the hang triage ----------------------------------------------------------------------
  const triage = $('[data-role="triage-form"]');
  if (triage) {
    triage.addEventListener("submit", (event) => {
      event.preventDefault();
      const f = new FormData(triage);
      const out = $('[data-role="triage-result"]');
      if (f.get("rank") === null || f.get("cause") === null) {
        out.replaceChildren(para(_("Choose a rank and a cause first."), "verdict bad"));
        return;
      }
      send(triage.dataset.url, { rank: Number(f.get("rank")), cause: f.get("cause") })
        .then(({ ok, data }) => {
          if (!ok) { out.replaceChildren(para(data.error, "error-box")); return; }
          out.replaceChildren(
            para(data.correct ? _("Right: rank and cause.") : _("Not quite."), data.correct ? "verdict ok" : "verdict bad"),
            para(data.rank_feedback, data.rank_correct ? "ok" : "bad"),
            para(data.cause_feedback, data.cause_correct ? "ok" : "bad"),
          );
          if (data.explain) out.appendChild(para(data.explain));
        });
    });
  }
})();

// How a question is asked, per kind (CollectiveLab.quiz.renderAnswer): options to choose
// (single, multiple, predict), a number with its unit, an order to build, pairs to match, or an
// explanation to write; and the buffer figure a predict question shows. Each fills `form` with
// answer() (the value to send, or an error to show), lock(), and pick(n) / undo() for the keys.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const Q = CL.quiz;
  const { el, textOf } = Q;
  const KIND_HINTS = {
    single: _("Choose one."),
    multiple: _("Choose all that apply."),
    predict: _("Select all that apply (it may be just one)."),
    numeric: _("Type a number; the unit is given."),
    order: _("Pick the items in order: press their numbers, or click them."),
    match: _("Pair each item on the left with one on the right."),
    explain: _("Answer in your own words, then compare with the model answer. Ctrl+Enter submits."),
  };

  function parseNumber(raw) {
    let text = String(raw).trim().replace(/[\s\u00a0_]/g, "");
    if (text.includes(",") && !text.includes(".")) text = text.replace(",", ".");
    else text = text.replace(/,/g, "");
    if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text)) return null;
    const value = Number(text);
    return Number.isFinite(value) ? value : null;
  }

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
      if (!chosen.length) return { error: _("Pick an option first.") };
      const extra = q.token ? { params: q.params, token: q.token } : null;
      return { value: type === "radio" ? chosen[0] : chosen, extra };
    };
    form.lock = () => list.querySelectorAll("input").forEach((i) => { i.disabled = true; });
  }

  function renderFigure(fig) {
    const table = el("table", { class: "buffer-view" });
    const caption = !fig.steps_done
      ? _("Buffers before the first step ({total} steps in all). Each cell lists whose contributions that copy holds.", { total: fig.total_steps })
      : fig.last_phase
        ? _("Buffers after step {step} of {total} ({phase}). Each cell lists whose contributions that copy holds.", { step: fig.steps_done, total: fig.total_steps, phase: fig.last_phase })
        : _("Buffers after step {step} of {total}. Each cell lists whose contributions that copy holds.", { step: fig.steps_done, total: fig.total_steps });
    table.appendChild(el("caption", { class: "visually-hidden", text: caption }));
    const head = el("tr", {}, [el("th", { scope: "col", text: "rank" })]);
    fig.chunks.forEach((label, c) => {
      const th = el("th", { scope: "col", text: label });
      th.style.borderBottom = `4px solid ${CL.palette.chunkColor(c, document.documentElement.dataset.theme)}`;
      head.appendChild(th);
    });
    table.appendChild(el("thead", {}, [head]));
    const body = el("tbody");
    const full = fig.ranks;
    fig.holdings.forEach((row, r) => {
      const tr = el("tr", {}, [el("th", { scope: "row", text: String(r) })]);
      row.forEach((held) => {
        let text = "—";
        if (held.length === full && full > 2) text = _("all");
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
        .map((t) => `${t.src}→${t.dst} ${t.chunk}${t.op === "reduce" ? _(" (reduce)") : ""}`)
        .join(_(", "));
      wrap.appendChild(el("p", { class: "muted last-step", text: _("Step {step} moved: {moves}.", { step: fig.steps_done, moves }) }));
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
      el("label", { for: id, text: _("Your answer") }),
      input,
      el("span", { id: `${id}-unit`, class: "unit", text: q.unit || "" }),
    ]));
    form.focusTarget = input;
    form.answer = () => {
      const value = parseNumber(input.value);
      if (value === null) return { error: _("Enter a number, e.g. 12.5 or 1.2e3.") };
      return { value, extra: { params: q.params, token: q.token } };
    };
    form.lock = () => { input.disabled = true; };
  }

  function renderOrder(q, form) {
    const picked = [];
    const pool = el("ol", { class: "order-pool", "aria-label": _("Items to place") });
    const chosen = el("ol", { class: "order-chosen", "aria-label": _("Your order"), "aria-live": "polite" });
    const buttons = q.items.map((item, i) => {
      const button = el("button", { type: "button", class: "order-item" }, [
        keyBadge(i + 1),
        el("span", { class: "option-text", html: item.html }),
      ]);
      button.addEventListener("click", () => place(i));
      pool.appendChild(el("li", {}, [button]));
      return button;
    });
    const undo = el("button", { type: "button", text: _("Undo") });
    const reset = el("button", { type: "button", text: _("Start over") });
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
      el("div", {}, [el("p", { class: "order-label", text: _("Items") }), pool]),
      el("div", {}, [el("p", { class: "order-label", text: _("Your order") }), chosen,
        el("p", { class: "order-tools" }, [undo, " ", reset])]),
    ]));
    refresh();
    form.pick = (n) => place(n - 1);
    form.undo = () => { if (!form.locked) { picked.pop(); refresh(); } };
    form.answer = () => {
      if (picked.length !== q.items.length) return { error: _("Place all {n} items first.", { n: q.items.length }) };
      return { value: picked.map((i) => q.items[i].id) };
    };
    form.lock = () => { form.locked = true; refresh(); };
  }

  function renderMatch(q, form) {
    const rows = q.left.map((left, i) => {
      const id = `${form.uid}-match-${i}`;
      const select = el("select", { id }, [el("option", { value: "", text: _("— choose —") })]);
      q.right.forEach((right) => select.appendChild(el("option", { value: right.id, text: textOf(right.html) })));
      return { left, select, row: el("div", { class: "match-row" }, [
        el("label", { for: id, class: "match-left", html: left.html }), select]) };
    });
    form.body.appendChild(el("div", { class: "match" }, rows.map((r) => r.row)));
    form.focusTarget = rows.length ? rows[0].select : null;
    form.answer = () => {
      const answer = {};
      for (const r of rows) {
        if (!r.select.value) return { error: _("Choose a match for every item.") };
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
      el("label", { for: id, text: _("Your answer (not graded: you compare it with the model answer)") }),
      area,
    ]));
    form.focusTarget = area;
    form.answer = () => ({ value: area.value });
    form.lock = () => { area.readOnly = true; };
  }

  // Fill `form.body` with the answer area of question `q`'s kind.
  function renderAnswer(q, form) {
    if (q.kind === "numeric") renderNumeric(q, form);
    else if (q.kind === "order") renderOrder(q, form);
    else if (q.kind === "match") renderMatch(q, form);
    else if (q.kind === "explain") renderExplain(q, form);
    else renderChoices(q, form);
  }

  Object.assign(Q, { KIND_HINTS, renderAnswer, renderFigure });
})(window);

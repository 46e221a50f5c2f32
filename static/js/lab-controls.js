// The lab page: its form (every control mirrored in the URL), Run, and Share / embed.
//
// The form works without JavaScript (a GET to /lab); with it, controls constrain each other
// (algorithms of the chosen collective, op only for reductions, root where it applies, node
// sizes that divide the rank count, element counts within the server's limits), the URL follows
// with history.replaceState, and Run streams the simulation over Socket.IO and plays it.
//
// A link with settings in its query runs on load and shows step 0 paused, or the step it names
// (`&step=5`), or plays with `&autoplay=1`; changing a setting runs again and shows step 0. The
// share dialog's link carries the step on screen, so a student lands where the teacher was.
//
// A class page (static/js/class-*.js) uses the same lab through CollectiveLab.labPage: it hears
// `lab:run` (a run the user asked for: {params, how}) on the lab's root and `player:control`
// from the player, shows a teacher's run with apply(), and locks the controls while following.
// Its URL and title stay the class's (config.keep_url).
(function (global) {
  "use strict";
  const config = JSON.parse(document.getElementById("lab-config").textContent);
  const $ = (id) => document.getElementById(id);
  const form = $("lab-form");
  const ui = {
    collective: $("collective"), algorithm: $("algorithm"), ranks: $("ranks"), ranksValue: $("ranks-value"),
    elements: $("elements"), op: $("op"), root: $("root"), rpn: $("ranks_per_node"),
    description: $("algorithm-description"), hint: $("elements-hint"), run: $("run"), share: $("share"),
    dialog: $("share-dialog"), error: document.querySelector('.lab [data-role="error"]'),
  };
  const lab = document.querySelector('[data-role="lab"]');
  const catalog = config.catalog;
  const byRanks = config.by_ranks; // what the server allows at each rank count
  const labMaxRanks = Number(ui.ranks.max); // the lab's own limit; an algorithm may allow fewer
  let speed = config.state.speed || 1;
  // Whether the node size was chosen (in the form or the link) rather than defaulted.
  let rpnChosen = config.state.ranks_per_node !== null;
  // How the next run is first shown: {autoplay, step}.
  let showing = { autoplay: true, step: 0 };
  let locked = false; // a class page following its teacher
  let predicting = Boolean(config.predict); // predict mode (lab-predict.js), kept in the URL
  const PARAM_KEYS = ["collective", "algorithm", "ranks", "elements", "op", "root", "ranks_per_node"];

  function algorithmsOf(collective) { return catalog.filter((e) => e.collective === collective); }
  function entry() {
    return catalog.find((e) => e.collective === ui.collective.value && e.algorithm === ui.algorithm.value)
      || algorithmsOf(ui.collective.value)[0];
  }
  function maxElements(collective, ranks) { return byRanks[ranks].max_elements[collective]; }
  function show(field, on) {
    const wrap = form.querySelector(`.field-${field}`);
    wrap.hidden = !on;
    for (const input of wrap.querySelectorAll("input, select")) input.disabled = !on || locked;
  }
  function int(input, fallback) {
    const v = parseInt(input.value, 10);
    return Number.isFinite(v) ? v : fallback;
  }

  // Make every control consistent with the others; `source` is the control that changed.
  function sync(source) {
    if (source === ui.collective) {
      ui.algorithm.replaceChildren(...algorithmsOf(ui.collective.value).map(
        (e) => new Option(global.CollectiveLab.algorithmName(e.algorithm), e.algorithm)));
    }
    const e = entry();
    // An in-network algorithm may allow fewer ranks than the lab (one NVSwitch domain).
    ui.ranks.max = String(Math.min(labMaxRanks, e.max_ranks));
    if (int(ui.ranks, 8) > e.max_ranks) ui.ranks.value = String(e.max_ranks);
    const ranks = int(ui.ranks, 8);
    ui.ranksValue.textContent = String(ranks);
    ui.ranks.setAttribute("aria-valuetext", _("{n} ranks", { n: ranks }));
    ui.description.textContent = e.description;
    show("op", e.reduces);
    show("root", e.uses_root);
    show("rpn", e.needs_ranks_per_node);
    ui.root.max = String(ranks - 1);
    if (int(ui.root, 0) > ranks - 1 || int(ui.root, 0) < 0) ui.root.value = "0";
    // The catalog's largest node size for the algorithm (CollNet: 8), if it has one.
    const sizes = byRanks[ranks].node_sizes.filter((d) => !e.max_ranks_per_node || d <= e.max_ranks_per_node);
    if (source === ui.rpn) rpnChosen = true;
    const chosen = rpnChosen && sizes.includes(int(ui.rpn, 0));
    const fallback = byRanks[ranks].node_size;
    const keep = chosen ? int(ui.rpn, 0) : sizes.includes(fallback) ? fallback : sizes[sizes.length - 1];
    if (ui.rpn.options.length !== sizes.length || source === ui.ranks) {
      ui.rpn.replaceChildren(...sizes.map((d) => new Option(String(d), d)));
    }
    ui.rpn.value = String(keep);
    const limit = maxElements(e.collective, ranks);
    const step = e.divisible ? ranks : 1;
    ui.elements.max = String(limit);
    ui.elements.min = String(step);
    ui.elements.step = String(step);
    let elements = int(ui.elements, 64);
    if (source !== ui.elements || !document.activeElement || document.activeElement !== ui.elements) {
      elements = Math.max(step, Math.min(limit, elements));
      if (e.divisible) elements = Math.max(ranks, Math.round(elements / ranks) * ranks);
      if (elements > limit) elements = Math.floor(limit / step) * step;
      ui.elements.value = String(elements);
    }
    ui.hint.textContent = (e.divisible ? _("Elements must be a multiple of ranks (equal blocks).") + " " : "")
      + _("Up to {limit} elements at {ranks} ranks.", { limit, ranks });
    if (!config.keep_url) {
      history.replaceState(null, "", `${config.urls.lab}?${query()}`);
      const lab = _("Lab");
      document.title = `${title()} · ${global.CollectiveLab.algorithmName(ui.algorithm.value)} · ${lab} · Collective Lab`;
    }
    if (lab.dataset.ran) ui.run.classList.add("stale");
  }

  function title() {
    const c = config.collectives.find((x) => x.name === ui.collective.value);
    return c ? c.title : ui.collective.value;
  }

  function state() {
    const e = entry();
    const s = { ranks: int(ui.ranks, 8), elements: int(ui.elements, 64) };
    if (e.reduces) s.op = ui.op.value;
    if (e.uses_root) s.root = int(ui.root, 0);
    if (e.needs_ranks_per_node) s.ranks_per_node = int(ui.rpn, 1);
    return s;
  }

  function query(extra) {
    const q = new URLSearchParams({ collective: ui.collective.value, algorithm: ui.algorithm.value });
    for (const [k, v] of Object.entries(state())) q.set(k, String(v));
    if (speed !== 1) q.set("speed", String(speed));
    if (predicting) q.set("predict", "1");
    for (const [k, v] of Object.entries(extra || {})) q.set(k, String(v));
    return q.toString();
  }

  // The lab link of these settings, with the step on screen when it is past the start.
  function shareLink() {
    const k = player.run ? player.run.cursor + 1 : 0;
    return `${location.origin}${config.urls.lab}?${query(k > 0 ? { step: k } : {})}`;
  }

  function embedUrl() {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(state())) q.set(k, String(v));
    q.set("autoplay", "1");
    q.set("loop", "1");
    if (speed !== 1) q.set("speed", String(speed));
    if (predicting) q.set("predict", "1");
    return `${location.origin}${config.urls.embed}${ui.collective.value}/${ui.algorithm.value}?${q}`;
  }

  function openShare() {
    const link = shareLink();
    const name = _("{title} ({algorithm}) on {ranks} ranks, Collective Lab",
      { title: title(), algorithm: global.CollectiveLab.algorithmName(ui.algorithm.value), ranks: int(ui.ranks, 8) });
    // The frame, and the one-line script that sizes it to its content (static/js/embed-resize.js).
    const snippet = `<iframe src="${global.CollectiveLab.escapeHtml(embedUrl())}" width="760" height="520" `
      + `style="border:0;max-width:100%" title="${global.CollectiveLab.escapeHtml(name)}" loading="lazy" data-collective-lab></iframe>\n`
      + `<script src="${location.origin}/static/js/embed-resize.js" async></script>`;
    ui.dialog.querySelector('[data-role="share-link"]').value = link;
    ui.dialog.querySelector('[data-role="share-snippet"]').value = snippet;
    ui.dialog.querySelector('[data-role="share-note"]').textContent = predicting
      ? _("The embed asks for a prediction before each step, then reveals it")
      : _("The embed autoplays and loops");
    ui.dialog.querySelector('[data-role="copy-status"]').textContent = "";
    ui.dialog.showModal();
  }

  async function copy(button) {
    const field = $(button.dataset.copy);
    const status = ui.dialog.querySelector('[data-role="copy-status"]');
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      status.textContent = _("Copied.");
    } catch (err) {
      status.textContent = _("Selected: press Ctrl+C (⌘C) to copy.");
    }
  }

  // ---- wiring: the views, player and client, as the embed has them (lab-session.js) ----------
  const { player, client, showError } = global.CollectiveLab.labSession(lab, {
    catalog, speed, errorBox: ui.error, showing: () => showing, predict: predicting,
    onSpeed: (s) => { speed = s; keepUrl(); },
  });
  function keepUrl() { if (!config.keep_url) history.replaceState(null, "", `${config.urls.lab}?${query()}`); }
  lab.addEventListener("predict:change", (e) => { predicting = e.detail.on; keepUrl(); });

  // The run the form describes: the simulate parameters that apply to its algorithm.
  function formParams() {
    return Object.assign({ collective: ui.collective.value, algorithm: ui.algorithm.value }, state());
  }

  // Ask the server for run `params` (the form's by default); show it as `how` ({autoplay, step}) says.
  function runNow(how, params) {
    showing = how;
    lab.dataset.ran = "1";
    ui.run.classList.remove("stale");
    showError("");
    player.loading(_("starting…"));
    client.simulate(Object.assign({}, params || formParams(), { seed: 0, interval_ms: 0 }));
  }

  // A run the user asked for: run it, and tell the page (a class's teacher drives with it).
  function userRun(how) {
    runNow(how);
    lab.dispatchEvent(new CustomEvent("lab:run", { detail: { params: formParams(), how } }));
  }

  // The parameters of a run that matter to its algorithm, in one order: two runs with the same
  // key are the same run (a root given to an allgather changes nothing).
  function runKey(params) {
    const e = catalog.find((x) => x.collective === params.collective && x.algorithm === params.algorithm) || {};
    const used = { op: e.reduces, root: e.uses_root, ranks_per_node: e.needs_ranks_per_node };
    return JSON.stringify(PARAM_KEYS.map((k) => (k in used && !used[k] ? null : params[k] ?? null)));
  }

  function sameRun(a, b) { return Boolean(a && b) && runKey(a) === runKey(b); }

  // Put `params` in the form (the controls constrain each other in this order).
  function setForm(params) {
    ui.collective.value = params.collective;
    sync(ui.collective);
    ui.algorithm.value = params.algorithm;
    ui.ranks.value = String(params.ranks);
    sync(ui.ranks);
    ui.elements.value = String(params.elements);
    if (params.op !== undefined) ui.op.value = params.op;
    if (params.root !== undefined) ui.root.value = String(params.root);
    if (params.ranks_per_node !== undefined && params.ranks_per_node !== null) {
      rpnChosen = true;
      ui.rpn.value = String(params.ranks_per_node);
    }
    sync(null);
  }

  // Show run `params` at `how` ({step, playing, speed}), not as the user's own change: a new run
  // is asked for only when the parameters differ from the one on screen.
  function apply(params, how) {
    setForm(params);
    if (how.speed) { player.setSpeed(how.speed); speed = how.speed; }
    const showAs = { autoplay: how.playing && how.step === 0, step: how.step, playing: how.playing };
    if (!sameRun(params, client.params)) { runNow(showAs, params); return; }
    showing = showAs; // for a run asked for and not yet started
    if (player.run) player.show(how.step, how.playing);
  }

  function setLocked(on) {
    locked = Boolean(on);
    for (const control of form.querySelectorAll("select, input, #run")) control.disabled = locked;
    if (!locked) sync(null); // re-disables the fields this algorithm does not use
    player.setLocked(locked);
  }

  form.addEventListener("change", (ev) => {
    sync(ev.target);
    if (form.checkValidity()) userRun({ autoplay: false, step: 0 });
  });
  ui.ranks.addEventListener("input", () => sync(ui.ranks));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    sync(null);
    if (!form.reportValidity()) return;
    global.labMetrics.markClick();
    userRun({ autoplay: true, step: 0 });
  });
  // A mouse click on Run leaves focus on the button, where Space would run again; give the
  // keyboard shortcuts back. Keyboard activation keeps focus where the user put it.
  ui.run.addEventListener("click", (ev) => { if (ev.detail > 0) setTimeout(() => ui.run.blur(), 0); });
  ui.share.addEventListener("click", openShare);
  for (const b of ui.dialog.querySelectorAll("[data-copy]")) b.addEventListener("click", () => copy(b));
  sync(null);
  if (config.load) runNow({ autoplay: config.load.autoplay, step: config.load.step });
  global.CollectiveLab.labPage = { player, client, formParams, runKey, apply, setLocked, run: userRun };
})(window);

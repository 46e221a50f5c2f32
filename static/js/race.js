// The race page and its embed: fetch the race (and, on the full page, the sweep) from the API,
// then play the lanes on one simulated clock. The slowest run's total time plays in PLAY_SECONDS
// at 1×, so every step lasts its simulated time, scaled. Keys as in the lab: Space play/pause,
// ←/→ the previous/next end of a step on the shared clock, Home restart, End the finish.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const F = CL.raceFormat;
  const PLAY_SECONDS = 8;
  const config = JSON.parse(document.getElementById("race-config").textContent);
  const root = document.querySelector('[data-role="race"]');
  const $ = (role) => root.querySelector(`[data-role="${role}"]`);

  const lanes = new CL.RaceLanes($("lanes"));
  const sweep = CL.RaceSweep && $("sweep-plot") ? new CL.RaceSweep($("sweep-plot"), $("crossovers"), $("sweep-sub")) : null;
  const state = { race: null, t: 0, end: 0, playing: false, last: 0, speed: config.speed, marks: [], asked: 0 };

  function qs(query) {
    return new URLSearchParams(query).toString();
  }

  async function getJSON(url) {
    // The API answers in the page's language (an embed's ?lang= is not remembered in a cookie).
    const r = await fetch(`${url}${url.includes("?") ? "&" : "?"}lang=${CL.lang}`, { headers: { Accept: "application/json" } });
    const answered = _("the server answered {status}", { status: r.status });
    const body = await r.json().catch(() => ({ error: answered }));
    if (!r.ok) throw new Error(body.error || answered);
    return body;
  }

  function showError(message) {
    const box = $("error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  // -- the clock -----------------------------------------------------------------------------
  function setTime(t) {
    state.t = Math.max(0, Math.min(t, state.end));
    lanes.show(state.t);
    const clock = $("clock");
    clock.textContent = F.formatTime(state.t);
    clock.dataset.timeS = String(state.t);
    const at = state.t >= state.end ? "end" : state.t <= 0 ? "start" : "middle";
    root.querySelector('[data-role="restart"]').disabled = at === "start";
    root.querySelector('[data-role="back"]').disabled = at === "start";
    root.querySelector('[data-role="forward"]').disabled = at === "end";
    if (at === "end" && state.playing) pause();
  }

  function frame(now) {
    if (!state.playing) return;
    const dt = (now - state.last) / 1000;
    state.last = now;
    setTime(state.t + (dt * state.speed * state.end) / PLAY_SECONDS);
    if (state.playing) requestAnimationFrame(frame);
  }

  function playLabel(playing) {
    const btn = root.querySelector('[data-role="play"]');
    btn.querySelector('[data-role="play-icon"]').hidden = playing;
    btn.querySelector('[data-role="pause-icon"]').hidden = !playing;
    btn.querySelector('[data-role="play-label"]').textContent = playing ? _("Pause") : _("Play");
    btn.setAttribute("aria-label", playing ? _("Pause (Space)") : _("Play (Space)"));
  }

  function play() {
    if (!state.race) return;
    if (state.t >= state.end) setTime(0);
    state.playing = true;
    state.last = performance.now();
    playLabel(true);
    requestAnimationFrame(frame);
  }

  function pause() {
    state.playing = false;
    playLabel(false);
    announce();
  }

  function toggle() {
    state.playing ? pause() : play();
  }

  // Step to the next (or previous) moment a step ends in any lane: the clock's own ticks.
  function step(direction) {
    if (!state.race) return;
    if (state.playing) pause();
    const eps = state.end * 1e-9;
    const next = direction > 0
      ? state.marks.find((m) => m > state.t + eps)
      : [...state.marks].reverse().find((m) => m < state.t - eps);
    setTime(next === undefined ? (direction > 0 ? state.end : 0) : next);
    announce();
  }

  function announce() {
    if (!state.race) return;
    const done = state.race.runs.filter((r) => r.time_s <= state.t * (1 + 1e-12)).length;
    $("race-status").textContent = _("At {now} of {end}: {done} of {n} finished.",
      { now: F.formatTime(state.t), end: F.formatTime(state.end), done, n: state.race.runs.length });
  }

  // -- a race --------------------------------------------------------------------------------
  function finishOrder(race) {
    const runs = [...race.runs].sort((a, b) => a.place - b.place || a.time_s - b.time_s);
    const list = document.createElement("ol");
    list.className = "finish-order";
    list.dataset.role = "order";
    for (const r of runs) {
      const li = document.createElement("li");
      li.dataset.algorithm = r.algorithm;
      li.textContent = `${CL.algorithmName(r.algorithm)}: ${F.formatTime(r.time_s)}`;
      list.append(li);
    }
    return list;
  }

  function showRace(race) {
    state.race = race;
    state.end = Math.max(...race.runs.map((r) => r.time_s));
    const ends = new Set();
    for (const r of race.runs) for (const s of r.steps) ends.add(s.start_s + s.time_s);
    state.marks = [...ends].sort((a, b) => a - b);
    lanes.reset(race);
    const verdict = $("verdict");
    verdict.replaceChildren();
    const sentence = document.createElement("span");
    sentence.dataset.role = "verdict-text";
    sentence.textContent = race.verdict;
    verdict.append(sentence, finishOrder(race));
    $("clock-total").textContent = _("of {end} · {topology}", { end: F.formatTime(state.end), topology: race.topology.label });
    $("lane-legend").hidden = false;
    for (const b of root.querySelectorAll(".race-player button")) b.disabled = false;
    setTime(0);
    announce();
    if (config.autoplay) play();
  }

  async function run(query) {
    const asked = ++state.asked; // a newer request wins
    pause();
    showError("");
    $("race-status").textContent = _("racing…");
    try {
      const race = await getJSON(`${config.urls.race}?${qs(query)}`);
      if (asked !== state.asked) return;
      showRace(race);
    } catch (e) {
      if (asked === state.asked) { showError(e.message); $("race-status").textContent = _("no race"); }
      return;
    }
    if (sweep) {
      const { bytes, ...rest } = query;
      getJSON(`${config.urls.sweep}?${qs(rest)}`)
        .then((data) => asked === state.asked && sweep.draw(data, Number(bytes)))
        .catch((e) => asked === state.asked && sweep.fail(e.message));
    }
  }

  // -- wiring --------------------------------------------------------------------------------
  function key(e) {
    if (!state.race || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    const acts = { ArrowRight: () => step(1), ArrowLeft: () => step(-1), Home: () => { pause(); setTime(0); announce(); }, End: () => { pause(); setTime(state.end); announce(); } };
    if (e.key === " " || e.key === "Spacebar") {
      if (tag === "BUTTON" || tag === "A" || tag === "SUMMARY") return;
      e.preventDefault();
      toggle();
    } else if (acts[e.key]) {
      e.preventDefault();
      acts[e.key]();
    }
  }

  function wire() {
    const on = (role, f) => root.querySelector(`[data-role="${role}"]`).addEventListener("click", f);
    on("play", toggle);
    on("forward", () => step(1));
    on("back", () => step(-1));
    on("restart", () => { pause(); setTime(0); announce(); });
    const speed = root.querySelector('[data-role="speed"]');
    if (speed) speed.addEventListener("change", () => { state.speed = Number(speed.value); });
    document.addEventListener("keydown", key);
  }

  function embedLink(query) {
    const a = $("embed-link");
    if (a) a.href = `${config.urls.embed}?${qs(query)}`;
  }

  async function start() {
    wire();
    const form = document.getElementById("race-form");
    if (!form) return run(config.query); // the embed: the link's race, no form
    let catalog;
    try {
      catalog = await getJSON(config.urls.topologies);
    } catch (e) {
      return showError(e.message);
    }
    const raceForm = new CL.RaceForm(form, config, catalog, (query) => {
      history.replaceState(null, "", `${config.urls.page}?${qs({ mode: "race", ...query })}`);
      embedLink(query);
      run(query);
    });
    const query = raceForm.query();
    embedLink(query);
    run(query);
  }

  start();
})(window);

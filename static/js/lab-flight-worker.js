// The topology's chunks in flight, drawn off the page's main thread (static/js/lab-topology.js
// starts this dedicated worker and hands it the packets' canvas with transferControlToOffscreen).
//
// A flight drawn by the page itself costs a main-thread frame per animation frame (the canvas
// of branch dots-canvas, bench/RESULTS.md), and 64 HTML dots moved by Element.animate cost a
// style recalc and 64 compositor layers a step. Here the page posts a step's packets once and
// this worker's own requestAnimationFrame loop draws them; its frames go to the compositor
// without the page's main thread.
//
// Messages from the page:
//   {type: "canvas", canvas}: the OffscreenCanvas (once);
//   {type: "fly", id, width, height, dpr, size, ring, ms, packets: [[x0, y0, x1, y1, colour]]}:
//     a step's flight, in the canvas's CSS pixels: each packet a disc `size` px across with a
//     1 px `ring`, from (x0, y0) to (x1, y1) in `ms` milliseconds, eased as CSS's ease-in-out
//     (what the dots' Element.animate used); the canvas takes the box's size and pixel ratio;
//   {type: "land"}: clear now (a new step or run cut the flight short);
//   {type: "probe", id}: answer what is drawn (below), for the browser tests.
// Messages to the page: {type: "landed", id} once a flight's last frame is gone.
"use strict";

let canvas = null, ctx = null, flight = null, frame = 0;

// CSS's ease-in-out, cubic-bezier(0.42, 0, 0.58, 1): the progress at time fraction x.
function easeInOut(x) {
  const bez = (t, a, b) => 3 * a * t * (1 - t) ** 2 + 3 * b * t * t * (1 - t) + t ** 3;
  let lo = 0, hi = 1, t = x;
  for (let i = 0; i < 30; i++) { // bisection: x(t) is increasing
    t = (lo + hi) / 2;
    if (bez(t, 0.42, 0.58) < x) lo = t; else hi = t;
  }
  return bez(t, 0, 1);
}

function at(p, k) { return [p[0] + (p[2] - p[0]) * k, p[1] + (p[3] - p[1]) * k]; }

function clear() {
  if (!ctx) return;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
}

function draw(f, k) {
  clear();
  ctx.setTransform(f.dpr, 0, 0, f.dpr, 0, 0);
  const r = f.size / 2;
  for (const p of f.packets) {
    const [x, y] = at(p, k);
    ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.fillStyle = f.ring; ctx.fill();
    ctx.beginPath(); ctx.arc(x, y, Math.max(0, r - 1), 0, 2 * Math.PI); ctx.fillStyle = p[4]; ctx.fill();
  }
}

function tick(now) {
  frame = 0;
  const f = flight;
  if (!f) return;
  if (f.t0 === null) f.t0 = now;
  const x = f.ms > 0 ? Math.min(1, (now - f.t0) / f.ms) : 1;
  if (x >= 1) { // landed: the arrowheads show again
    land();
    postMessage({ type: "landed", id: f.id });
    return;
  }
  f.k = easeInOut(x);
  draw(f, f.k);
  frame = requestAnimationFrame(tick);
}

function land() {
  if (frame) cancelAnimationFrame(frame);
  frame = 0; flight = null;
  clear();
}

function fly(msg) {
  land();
  const w = Math.max(1, Math.round(msg.width * msg.dpr)), h = Math.max(1, Math.round(msg.height * msg.dpr));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  flight = { ...msg, t0: null, k: 0 };
  draw(flight, 0); // at the senders from the first frame on
  frame = requestAnimationFrame(tick);
}

// What the canvas shows: each packet in flight, where it is now and the colour of the pixel at
// its centre, read back from the canvas; and how many pixels hold any ink at all.
function probe(id) {
  const packets = [];
  let inked = 0;
  if (ctx) {
    const img = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < img.length; i += 4) if (img[i]) inked += 1;
    const f = flight;
    for (const p of f ? f.packets : []) {
      const [x, y] = at(p, f.k);
      const i = 4 * (Math.floor(y * f.dpr) * canvas.width + Math.floor(x * f.dpr));
      packets.push({ from: [p[0], p[1]], to: [p[2], p[3]], at: [x, y], k: f.k,
        color: `rgb(${img[i]}, ${img[i + 1]}, ${img[i + 2]})` });
    }
  }
  postMessage({ type: "probe", id, packets, inked });
}

self.onmessage = (e) => {
  const msg = e.data;
  if (msg.type === "canvas") { canvas = msg.canvas; ctx = canvas.getContext("2d"); }
  else if (msg.type === "fly") {
    if (ctx) fly(msg); else postMessage({ type: "landed", id: msg.id }); // no canvas: nothing to draw
  }
  else if (msg.type === "land") land();
  else if (msg.type === "probe") probe(msg.id);
};

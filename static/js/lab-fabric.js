// The link-traffic view's physical side: the run on a real network. For the run in the lab it
// asks GET /api/race for the same collective, ranks and message (elements × item size) on a
// chosen topology, and at each step lists the physical links the step loads most, shaded by
// utilisation (cividis), with the step's time and its bottleneck link named. The race API
// compares two or more algorithms, so it asks for this run's algorithm beside another of the
// same collective and shows only this one. Every number is the server's.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const V = CL.views;
  const F = CL.raceFormat;
  const SHOWN = 8; // links listed per step
  const GPUS_PER_NODE = 8; // a DGX-like node: the fat-tree takes ceil(p / 8) of them

  // The topology's query for p ranks: a size that holds them, or null if none does here.
  const SHAPES = {
    fat_tree: (p) => ({ topology: "fat_tree", nodes: Math.ceil(p / GPUS_PER_NODE), gpus_per_node: Math.min(p, GPUS_PER_NODE), oversubscription: 2 }),
    nvswitch: (p) => ({ topology: "nvswitch", gpus: p }),
    pcie: (p) => ({ topology: "pcie", gpus: p }),
  };

  class FabricView {
    constructor(el, catalog) {
      this.el = el;
      this.catalog = catalog;
      this.select = el.querySelector('[data-role="fabric-topology"]');
      this.out = el.querySelector('[data-role="fabric-step"]');
      this.list = el.querySelector('[data-role="fabric-links"]');
      this.select.addEventListener("change", () => this._load());
      this.asked = 0;
    }

    reset(run) {
      this.run = run;
      this._load();
    }

    async _load() {
      const asked = ++this.asked;
      this.data = null;
      this.list.replaceChildren();
      const shape = SHAPES[this.select.value];
      if (!shape || !this.run) {
        this.out.textContent = _("Choose a network to see this run's steps on its links.");
        return;
      }
      const s = this.run.start;
      const others = this.catalog.filter((e) => e.collective === s.collective && e.algorithm !== s.algorithm);
      if (!others.length || s.ranks < 2) {
        this.out.textContent = _("The physical view needs two or more ranks and a collective with a second algorithm to race against.");
        return;
      }
      const query = Object.assign({
        collective: s.collective, algorithms: `${s.algorithm},${others[0].algorithm}`,
        ranks: s.ranks, bytes: this.run.itemsize * s.elements,
      }, shape(s.ranks));
      this.out.textContent = _("Asking the server…");
      try {
        const r = await fetch(`/api/race?${new URLSearchParams(Object.assign(query, { lang: CL.lang }))}`);
        const body = await r.json();
        if (asked !== this.asked) return;
        if (!r.ok) throw new Error(body.error || _("the server answered {status}", { status: r.status }));
        this.data = { race: body, run: body.runs.find((x) => x.algorithm === s.algorithm) };
        this.render();
      } catch (e) {
        if (asked === this.asked) this.out.textContent = _("No physical view: {message}", { message: e.message });
      }
    }

    // Show the step at the run's cursor: its time, its bottleneck and its busiest links.
    render() {
      if (!this.data || !this.run) return;
      const { race, run } = this.data;
      const k = this.run.cursor;
      this.el.dataset.step = String(k);
      if (k < 0 || k >= run.steps.length) {
        const facts = { topology: race.topology.label, n: run.steps.length, time: F.formatTime(run.time_s) };
        this.out.textContent = run.bottleneck
          ? _("On {topology}: {n} steps, {time} in all; the costliest link: {link}.", Object.assign(facts, { link: F.linkName(run.bottleneck) }))
          : _("On {topology}: {n} steps, {time} in all.", facts);
        this.list.replaceChildren();
        return;
      }
      const step = run.steps[k];
      const b = step.bottleneck;
      const facts = { k: k + 1, topology: race.topology.label, time: F.formatTime(step.time_s) };
      this.out.textContent = b
        ? _("Step {k} on {topology}: {time}; bottleneck {link}, carrying {bytes}.", Object.assign(facts, { link: F.linkName(b), bytes: CL.formatBytes(b.bytes, "binary") }))
        : _("Step {k} on {topology}: {time}; bottleneck none (α only).", facts);
      const order = step.links.map((_, i) => i).sort((x, y) => step.utilisation[y] - step.utilisation[x]).slice(0, SHOWN);
      this.list.replaceChildren(...order.map((i) => {
        const li = document.createElement("li");
        li.className = "link-load";
        const swatch = document.createElement("span");
        swatch.className = "link-swatch";
        swatch.setAttribute("aria-hidden", "true");
        swatch.style.background = F.cividis(step.utilisation[i]);
        const link = race.topology.links[step.links[i]];
        li.append(swatch, ` ${link.name}: ${F.percent(step.utilisation[i])} busy, ${CL.formatBytes(step.bytes[i], "binary")}`);
        if (b && step.links[i] === b.link) li.classList.add("bottleneck");
        return li;
      }));
    }
  }

  V.FabricView = FabricView;
})(window);

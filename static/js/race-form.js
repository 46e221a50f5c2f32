// The race's form: collective, two to four algorithms, ranks, message size, topology with its
// own parameters, hardware preset and rank mapping. The topologies, their parameters and ranges
// come from GET /api/topologies; which algorithms a rank count allows comes from the page's
// config (the engine's own check, run on the server): this file keeps no rule of its own.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  // The rank mappings (app/fabric/mapping.py) as the form names them.
  const MAPPINGS = { fill: _("fill"), round_robin: _("round-robin") };
  const SIZES = Array.from({ length: 23 }, (_, i) => 2 ** (10 + i)); // 1 KiB .. 4 GiB

  function option(value, label, selected) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = label;
    o.selected = selected;
    return o;
  }

  class RaceForm {
    constructor(form, config, catalog, onRun) {
      this.form = form;
      this.config = config;
      this.catalog = catalog; // GET /api/topologies
      this.onRun = onRun;
      this.topologies = Object.fromEntries(catalog.topologies.map((t) => [t.name, t]));
      const q = config.query;
      this.wanted = new Set((q.algorithms || "").split(",").filter(Boolean));
      this.el = (name) => form.querySelector(`[name="${name}"]`);
      this.el("ranks").max = String(catalog.max_ranks);
      this._sizes(Number(q.bytes));
      for (const t of catalog.topologies) this.el("topology").append(option(t.name, t.label, t.name === (q.topology || "flat")));
      for (const m of catalog.mappings) this.el("mapping").append(option(m, MAPPINGS[m] || m.replace("_", "-"), m === (q.mapping || "fill")));
      this._topology(q);
      this._algorithms();
      form.addEventListener("change", (e) => this._changed(e));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        if (this._count()) this.onRun(this.query());
      });
    }

    _sizes(bytes) {
      const select = this.el("bytes");
      const sizes = SIZES.includes(bytes) || !(bytes > 0) ? SIZES : [...SIZES, bytes].sort((a, b) => a - b);
      const chosen = bytes > 0 ? bytes : 2 ** 20;
      for (const s of sizes) select.append(option(String(s), CL.formatBytes(s, "binary"), s === chosen));
    }

    _changed(e) {
      const name = e.target.name;
      if (name === "topology") this._topology({});
      if (name === "collective" || name === "ranks") this._algorithms();
      if (e.target.type === "checkbox") {
        e.target.checked ? this.wanted.add(e.target.value) : this.wanted.delete(e.target.value);
        this._count();
      }
    }

    // The chosen topology's presets, parameters and description; `q` the link's values.
    _topology(q) {
      const spec = this.topologies[this.el("topology").value];
      const preset = this.el("preset");
      preset.replaceChildren(...spec.presets.map((p) => option(p, p.replace(/_/g, " "), p === (q.preset || spec.default_preset))));
      const box = this.form.querySelector('[data-role="topology-params"]');
      box.replaceChildren(...spec.params.map((p) => {
        const field = document.createElement("div");
        field.className = "field field-param";
        const id = `race-param-${p.name}`;
        const input = Object.assign(document.createElement("input"), {
          id, name: p.name, type: "number", min: p.low, max: p.high, step: p.kind === "int" ? 1 : "any",
          value: q[p.name] !== undefined ? q[p.name] : p.default,
        });
        input.setAttribute("inputmode", p.kind === "int" ? "numeric" : "decimal");
        const text = p.label || p.help || p.name.replace(/_/g, " ");
        const label = Object.assign(document.createElement("label"), { htmlFor: id, textContent: text });
        if (p.help && p.label) label.title = p.help;
        field.append(label, input);
        return field;
      }));
      this.form.querySelector('[data-role="topology-description"]').textContent = spec.description;
    }

    // The collective's algorithms as checkboxes; those the engine refuses at this rank count
    // are shown disabled, with the reason.
    _algorithms() {
      const collective = this.el("collective").value;
      const ranks = Number(this.el("ranks").value);
      const box = this.form.querySelector('[data-role="algorithm-choices"]');
      const names = this.config.algorithms[collective] || [];
      const known = new Set(names.map((a) => a.name));
      if (![...this.wanted].some((n) => known.has(n))) {
        this.wanted = new Set(names.slice(0, 2).map((a) => a.name));
      }
      box.replaceChildren(...names.map((a) => {
        const refused = (this.config.refused[`${collective}/${a.name}`] || []).includes(ranks);
        const label = document.createElement("label");
        label.className = "algorithm-choice";
        label.title = refused ? _("not at {ranks} ranks", { ranks }) : a.description;
        const box = Object.assign(document.createElement("input"), {
          type: "checkbox", value: a.name, checked: !refused && this.wanted.has(a.name), disabled: refused,
        });
        label.append(box, document.createTextNode(" " + CL.algorithmName(a.name)));
        return label;
      }));
      this._count();
    }

    _checked() {
      return [...this.form.querySelectorAll('[data-role="algorithm-choices"] input:checked')].map((b) => b.value);
    }

    // Two to four algorithms (the API's own bounds): otherwise say so and keep Race disabled.
    _count() {
      const n = this._checked().length;
      const ok = n >= this.catalog.min_algorithms && n <= this.catalog.max_algorithms;
      const hint = this.form.querySelector('[data-role="algorithms-hint"]');
      hint.textContent = _("({min} to {max}; {n} chosen)", { min: this.catalog.min_algorithms, max: this.catalog.max_algorithms, n });
      hint.classList.toggle("bad-text", !ok);
      this.form.querySelector('[data-role="race-run"]').disabled = !ok;
      this.form.querySelector('[data-role="algorithms-value"]').value = this._checked().join(",");
      return ok;
    }

    // The race's query: the API's fields and the chosen topology's parameters.
    query() {
      const spec = this.topologies[this.el("topology").value];
      const q = {
        collective: this.el("collective").value,
        algorithms: this._checked().join(","),
        ranks: this.el("ranks").value,
        bytes: this.el("bytes").value,
        topology: spec.name,
        preset: this.el("preset").value,
        mapping: this.el("mapping").value,
      };
      for (const p of spec.params) q[p.name] = this.el(p.name).value;
      return q;
    }
  }

  CL.RaceForm = RaceForm;
})(window);

// A calculator's inputs (CollectiveLab.calc.Form): number boxes with their sliders and size
// read-outs, the collective's algorithms, and link presets that fill a latency and a bandwidth.
// The form turns what is typed into the API's query (bandwidths always in GB/s) and marks the
// field a server error names.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const C = CL.calc;

  // The link presets the page carries once for all its widgets: {key: {latency_us, bandwidth_gbs}}.
  function linkPresets() {
    const node = document.getElementById("calc-presets");
    return node ? JSON.parse(node.textContent) : {};
  }

  class Form {
    // `spec` and `algorithms` from the widget's data; `units` is the widget's ({bandwidth, sizes}
    // are read here, the bandwidth changed by setBandwidthUnit).
    constructor(form, spec, algorithms, units, presets) {
      this.form = form;
      this.fields = new Map(spec.fields.map((f) => [f.name, f]));
      this.algorithms = algorithms;
      this.units = units;
      this.presets = presets;
      this.syncAll();
      this.filterAlgorithms();
    }

    el(name, role) {
      const field = this.form.querySelector(`[data-field="${name}"]`);
      if (!field) return null;
      return role ? field.querySelector(`[data-role="${role}"]`) : field.querySelector(`[name="${name}"]`);
    }

    // Bandwidth inputs show GB/s or Gb/s; the API always takes GB/s.
    bandwidthFactor(name) {
      const f = this.fields.get(name);
      return f && f.unit === "gbs" && this.units.bandwidth === "Gbps" ? C.BITS_PER_BYTE : 1;
    }

    apiValue(name) {
      const input = this.el(name);
      const f = this.fields.get(name);
      if (f.kind === "bool") return input.checked ? "true" : "false";
      if (f.kind === "int" || f.kind === "float") {
        const factor = this.bandwidthFactor(name);
        if (factor === 1 || input.value.trim() === "") return input.value.trim();
        return String(Number(input.value) / factor);
      }
      return input.value;
    }

    query() {
      const params = new URLSearchParams();
      for (const name of this.fields.keys()) params.set(name, this.apiValue(name));
      return params;
    }

    setNumber(name, apiValue) {
      const input = this.el(name);
      if (!input) return;
      input.value = String(Number((apiValue * this.bandwidthFactor(name)).toPrecision(12)));
      this.syncFromNumber(name);
    }

    // Every slider and size read-out from its number box (after the size family changed too).
    syncAll() {
      for (const name of this.fields.keys()) this.syncFromNumber(name);
    }

    syncFromNumber(name) {
      const f = this.fields.get(name);
      if (f.kind !== "int" && f.kind !== "float") return;
      const value = Number(this.el(name).value) / this.bandwidthFactor(name);
      const slider = this.el(name, "slider");
      if (slider && Number.isFinite(value) && value > 0) {
        const position = slider.dataset.log2 === "true" ? Math.round(Math.log2(value)) : value;
        slider.value = String(Math.min(Number(slider.max), Math.max(Number(slider.min), position)));
        slider.setAttribute("aria-valuetext", f.unit === "bytes" ? CL.formatBytes(value, this.units.sizes) : String(value));
      }
      const pretty = this.el(name, "pretty");
      if (pretty) pretty.textContent = Number.isFinite(value) ? CL.formatBytes(value, this.units.sizes) : "";
    }

    syncFromSlider(name) {
      const slider = this.el(name, "slider");
      const raw = Number(slider.value);
      const value = slider.dataset.log2 === "true" ? 2 ** raw : raw;
      this.setNumber(name, value);
    }

    // Show bandwidths in `unit` ("GBps" or "Gbps"), keeping the values they stand for.
    setBandwidthUnit(unit) {
      const before = new Map();
      for (const f of this.fields.values()) if (f.unit === "gbs") before.set(f.name, Number(this.apiValue(f.name)));
      this.units.bandwidth = unit;
      for (const [name, gbs] of before) if (Number.isFinite(gbs)) this.setNumber(name, gbs);
      for (const f of this.fields.values()) {
        if (f.unit !== "gbs") continue;
        const label = this.el(f.name, "unit");
        if (label) label.textContent = unit === "Gbps" ? "Gb/s" : "GB/s";
      }
    }

    applyPreset(presetField) {
      const key = this.el(presetField.name).value;
      const link = this.presets[key];
      if (!link || !presetField.fills) return;
      const [latency, bandwidth] = presetField.fills;
      this.setNumber(latency, link.latency_us);
      this.setNumber(bandwidth, link.bandwidth_gbs);
    }

    // Offer only the chosen collective's algorithms (the catalog comes with the page).
    filterAlgorithms() {
      const collective = this.el("collective");
      const algorithm = this.el("algorithm");
      if (!collective || !algorithm || algorithm.tagName !== "SELECT") return;
      const allowed = this.algorithms[collective.value] || [];
      for (const option of algorithm.options) {
        const ok = allowed.includes(option.value);
        option.hidden = !ok;
        option.disabled = !ok;
      }
      if (!allowed.includes(algorithm.value) && allowed.length) algorithm.value = allowed[0];
    }

    // Editing a latency or bandwidth by hand makes its preset "custom".
    markCustom(name) {
      for (const f of this.fields.values()) {
        if (f.kind === "preset" && f.fills && f.fills.includes(name)) this.el(f.name).value = "custom";
      }
    }

    // Follow an input or change event on `target`; true when the inputs changed and the answer
    // should be asked for again. A preset <select> applies on its change event (`committed`).
    onInput(target, committed) {
      const holder = target.closest("[data-field]");
      if (!holder) return false;
      const name = holder.dataset.field;
      const f = this.fields.get(name);
      if (target.dataset.role === "slider") this.syncFromSlider(name);
      else if (f.kind === "int" || f.kind === "float") this.syncFromNumber(name);
      if (name === "collective") this.filterAlgorithms();
      if (f.kind === "preset") {
        if (!committed && target.tagName === "SELECT") return false; // change event follows
        this.applyPreset(f);
      } else if (f.unit === "us" || f.unit === "gbs") {
        this.markCustom(name);
      }
      return true;
    }

    // Mark invalid the field `message` names, and no other.
    markInvalid(message) {
      for (const input of this.form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
      const field = this.fieldNamedIn(message);
      if (field) for (const input of field.querySelectorAll("input, select")) input.setAttribute("aria-invalid", "true");
    }

    // The server's messages begin with the field as the API spells it ("top_k must be ...").
    fieldNamedIn(message) {
      let first = null;
      for (const name of this.fields.keys()) {
        const at = message.search(new RegExp(`\\b${name}\\b`));
        if (at >= 0 && (!first || at < first.at)) first = { name, at };
      }
      return first && this.form.querySelector(`[data-field="${first.name}"]`);
    }
  }

  Object.assign(C, { Form, linkPresets });
})(window);

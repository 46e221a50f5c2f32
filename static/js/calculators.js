// Live calculator widgets. Each widget reads its inputs, asks GET /api/calc/<name> (debounced),
// and draws the answer: headline numbers, the sentence, the formula with numbers, a table and
// Plotly charts. Every number comes from the server's cost model; the widget only converts
// units for display and never evaluates a cost formula. On a page of its own in a frame (the
// embed) the widget is compact. Its parts are in the files calc-format.js lists, loaded before
// this one.
(function (global) {
  "use strict";
  const C = global.CollectiveLab.calc;

  const DEBOUNCE_MS = 200;

  class Widget {
    constructor(root, linkPresets) {
      this.root = root;
      this.data = JSON.parse(root.querySelector('script[data-role="calc-data"]').textContent);
      this.errorBox = root.querySelector('[data-role="error"]');
      this.units = { time: "auto", bandwidth: "GBps", sizes: this.data.result.sizes || "binary" };
      this.timer = null;
      this.controller = null;
      this.revision = 0;
      this.result = this.data.result;
      const compact = root.classList.contains("calc-compact"); // the embed: every pixel counts
      const formEl = root.querySelector('[data-role="form"]');
      this.form = new C.Form(formEl, this.data.spec, this.data.algorithms, this.units, linkPresets);
      this.answer = new C.Answer(root, this.units);
      this.charts = new C.Charts(root.querySelector('[data-role="charts"]'), this.units, compact);
      this.bind(formEl);
      this.render(this.result);
    }

    bind(formEl) {
      formEl.addEventListener("submit", (event) => {
        event.preventDefault();
        this.fetchNow();
      });
      formEl.addEventListener("input", (event) => this.onInput(event.target));
      document.addEventListener("themechange", () => { if (this.result) this.render(this.result); });
      formEl.addEventListener("change", (event) => this.onInput(event.target, true));
      this.root.querySelector('[data-role="time-unit"]').addEventListener("change", (event) => {
        this.units.time = event.target.value;
        this.render(this.result);
      });
      this.root.querySelector('[data-role="bandwidth-unit"]').addEventListener("change", (event) => {
        this.form.setBandwidthUnit(event.target.value);
        this.render(this.result);
      });
    }

    onInput(target, committed) {
      if (this.form.onInput(target, committed)) this.schedule();
    }

    schedule() {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.fetchNow(), DEBOUNCE_MS);
    }

    async fetchNow() {
      clearTimeout(this.timer);
      if (this.controller) this.controller.abort();
      const controller = new AbortController();
      this.controller = controller;
      this.root.setAttribute("aria-busy", "true");
      try {
        const response = await fetch(`${this.data.api}?${this.form.query()}`, {
          headers: { Accept: "application/json" },
          signal: controller.signal,
        });
        const body = await response.json();
        if (controller.signal.aborted) return;
        if (!response.ok) {
          this.withdraw(body.error || _("The server answered {status}.", { status: response.status }));
          return;
        }
        this.showError("");
        this.result = body;
        this.render(body);
      } catch (error) {
        if (error.name !== "AbortError") this.withdraw(_("Could not reach the server: {message}", { message: error.message }));
      } finally {
        if (this.controller === controller) {
          this.controller = null;
          this.root.removeAttribute("aria-busy");
        }
      }
    }

    showError(message) {
      this.errorBox.textContent = message;
      this.errorBox.hidden = !message;
      this.form.markInvalid(message);
    }

    // No answer for these inputs: take the last one off the screen rather than leave it looking
    // like the answer to what is typed now.
    withdraw(message) {
      this.showError(message);
      this.result = null;
      this.answer.clear();
      this.charts.divs(0);
      this.root.dataset.stale = "true";
    }

    render(result) {
      if (!result) return;
      delete this.root.dataset.stale;
      if (result.sizes && result.sizes !== this.units.sizes) {
        this.units.sizes = result.sizes;
        this.form.syncAll();
      }
      this.answer.show(result);
      this.charts.draw(result.charts);
      this.revision += 1;
      this.root.dataset.revision = String(this.revision);
    }
  }

  function init() {
    const linkPresets = C.linkPresets();
    for (const root of document.querySelectorAll(".calc-widget[data-calc]")) new Widget(root, linkPresets);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})(window);

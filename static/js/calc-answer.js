// A calculator's answer in words and numbers (CollectiveLab.calc.Answer): the headline values,
// the sentence, the formula with and without the numbers, the table and the notes, each value
// in the widget's display units.
(function (global) {
  "use strict";
  const C = global.CollectiveLab.calc;

  class Answer {
    // `root` is the widget; `units` its display units, read at each show.
    constructor(root, units) {
      this.root = root;
      this.units = units;
    }

    part(role) {
      return this.root.querySelector(`[data-role="${role}"]`);
    }

    show(result) {
      this.showOutputs(result.outputs);
      this.part("interpretation").textContent = result.interpretation;
      this.part("formula").textContent = result.formula;
      this.part("substituted").textContent = result.substituted;
      this.showTable(result.table);
      this.showNotes(result.notes);
    }

    // Take the numbers off the screen; the formula stays, it holds no input.
    clear() {
      this.part("outputs").replaceChildren();
      for (const role of ["interpretation", "substituted"]) this.part(role).textContent = "";
      this.showTable(null);
      this.showNotes([]);
    }

    showOutputs(outputs) {
      this.part("outputs").replaceChildren(...outputs.map((o) => {
        const item = document.createElement("div");
        item.dataset.output = o.key;
        const term = document.createElement("dt");
        term.textContent = o.label;
        const value = document.createElement("dd");
        value.textContent = C.formatValue(o.value, o.kind, this.units);
        if (C.isIdentifier(o.value, o.kind)) value.translate = false;
        item.append(term, value);
        return item;
      }));
    }

    showTable(table) {
      const holder = this.part("table");
      const details = holder.closest("details");
      if (!table || !table.columns) {
        details.hidden = true;
        holder.replaceChildren();
        return;
      }
      details.hidden = false;
      const el = document.createElement("table");
      const head = el.createTHead().insertRow();
      for (const title of table.columns) {
        const th = document.createElement("th");
        th.scope = "col";
        th.textContent = title;
        head.append(th);
      }
      const body = el.createTBody();
      for (const row of table.rows) {
        const tr = body.insertRow();
        row.forEach((value, i) => {
          const cell = tr.insertCell();
          cell.textContent = C.formatValue(value, table.kinds[i], this.units);
          if (C.isIdentifier(value, table.kinds[i])) cell.translate = false;
        });
      }
      holder.replaceChildren(el);
    }

    showNotes(notes) {
      this.part("notes").replaceChildren(...(notes || []).map((text) => {
        const li = document.createElement("li");
        li.textContent = text;
        return li;
      }));
    }
  }

  C.Answer = Answer;
})(window);

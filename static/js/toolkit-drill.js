// A derivation drill: each step's formula goes to the server, which says whether it is right,
// names the likely mistake and gives a hint; a right (or revealed) step shows the model answer
// and opens the next one, with the focus in its input, so the whole drill runs from the keyboard.
(function () {
  "use strict";
  const root = document.querySelector('[data-role="drill"]');
  if (!root) return;
  const steps = Array.from(root.querySelectorAll(".drill-step"));

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => r.json().then((data) => ({ ok: r.ok, data })));
  }

  // Paragraphs of text into the step's feedback box, each with an optional class.
  function say(step, parts) {
    const box = step.querySelector('[data-role="feedback"]');
    box.replaceChildren();
    for (const [text, cls] of parts) {
      if (!text) continue;
      const p = document.createElement("p");
      if (cls) p.className = cls;
      p.textContent = text;
      box.appendChild(p);
    }
  }

  function modelLine(data) {
    const line = document.createElement("p");
    line.className = "drill-model";
    const label = document.createElement("span");
    label.textContent = _("Model answer:") + " ";
    const code = document.createElement("code");
    code.textContent = data.model;
    line.append(label, code);
    return line;
  }

  // Close the step (its answer shown), then open the next one or the closing note.
  function finish(step, data, verdict, right) {
    say(step, [[verdict, right ? "verdict ok" : "verdict"], [data.explain, ""]]);
    step.querySelector('[data-role="feedback"]').appendChild(modelLine(data));
    step.classList.add("done");
    step.querySelectorAll("input, button").forEach((el) => { el.disabled = true; });
    if (data.next === null || data.next === undefined) {
      const done = root.querySelector('[data-role="done"]');
      done.hidden = false;
      done.focus();
      return;
    }
    const next = steps[data.next];
    next.hidden = false;
    next.querySelector("input").focus();
  }

  steps.forEach((step) => {
    const index = Number(step.dataset.step);
    const form = step.querySelector("form");
    const input = form.querySelector("input");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      post(root.dataset.checkUrl, { step: index, answer: input.value }).then(({ ok, data }) => {
        if (!ok) {
          say(step, [[data.error || _("The server could not check this answer."), "verdict bad"]]);
          input.setAttribute("aria-invalid", "true");
          return;
        }
        input.removeAttribute("aria-invalid");
        if (data.correct) {
          finish(step, data, _("Right."), true);
        } else {
          say(step, [
            [_("Not yet. {feedback}", { feedback: data.feedback }), "verdict bad"],
            [_("Hint: {hint}", { hint: data.hint }), "hint"],
          ]);
          input.focus();
        }
      });
    });
    step.querySelector('[data-role="reveal"]').addEventListener("click", () => {
      post(root.dataset.revealUrl, { step: index }).then(({ ok, data }) => {
        if (ok) finish(step, data, _("Revealed."), false);
      });
    });
  });
})();

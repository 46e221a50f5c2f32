// Lessons: progress marks kept in this browser (localStorage), "mark as done", clearing them,
// live full-text search on the index, and the table of contents on a lesson page. No data
// leaves the browser except the search query, which goes to this app's /api/lessons/search.
(function () {
  "use strict";

  const STORE_KEY = "collective-lab.lessons.progress.v1";

  // -- progress: {slug: {visited: ISO time, done: bool}} --------------------------------------
  const Progress = {
    read() {
      try {
        const data = JSON.parse(window.localStorage.getItem(STORE_KEY) || "{}");
        return data && typeof data === "object" ? data : {};
      } catch (err) {
        return {}; // storage blocked or corrupt: behave as a first visit
      }
    },
    write(data) {
      try {
        window.localStorage.setItem(STORE_KEY, JSON.stringify(data));
      } catch (err) {
        /* private mode or quota: progress simply is not kept */
      }
    },
    update(slug, change) {
      const data = this.read();
      data[slug] = Object.assign({}, data[slug], change);
      this.write(data);
      return data[slug];
    },
    clear() {
      try { window.localStorage.removeItem(STORE_KEY); } catch (err) { /* nothing kept anyway */ }
    },
  };

  function statusOf(entry) {
    if (entry && entry.done) return "done";
    if (entry && entry.visited) return "visited";
    return "new";
  }

  // -- the index page ---------------------------------------------------------------------------
  function showIndexProgress(root) {
    const data = Progress.read();
    const items = root.querySelectorAll(".lesson-item[data-slug]");
    let done = 0;
    let visited = 0;
    items.forEach((item) => {
      const status = statusOf(data[item.dataset.slug]);
      item.dataset.progress = status;
      const mark = item.querySelector('[data-role="progress-mark"]');
      const text = item.querySelector('[data-role="progress-text"]');
      mark.textContent = status === "done" ? "✓" : status === "visited" ? "•" : "";
      mark.title = status === "done" ? _("Done") : status === "visited" ? _("Visited") : _("Not started");
      text.textContent = status === "done" ? _(" (done)") : status === "visited" ? _(" (visited)") : "";
      if (status === "done") done += 1;
      if (status !== "new") visited += 1;
    });
    const summary = root.querySelector('[data-role="progress-summary"]');
    const clear = root.querySelector('[data-role="clear-progress"]');
    if (summary) {
      summary.textContent = _("{done} of {total} lessons done, {visited} visited.", { done, total: items.length, visited });
    }
    if (clear) clear.hidden = visited === 0;
  }

  function initIndex(root) {
    showIndexProgress(root);
    const clear = root.querySelector('[data-role="clear-progress"]');
    if (clear) {
      clear.addEventListener("click", () => {
        if (!window.confirm(_("Forget which lessons you visited and finished?"))) return;
        Progress.clear();
        showIndexProgress(root);
      });
    }
    initSearch(root);
    // Coming back with the browser's Back button shows fresh marks.
    window.addEventListener("pageshow", () => showIndexProgress(root));
  }

  // -- search ---------------------------------------------------------------------------------
  // Every piece of text goes in as text (textContent, text nodes): a lesson's sentence may
  // hold "<" and "&", and it is shown, never parsed.
  function link(href, text, className) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    if (className) a.className = className;
    return a;
  }

  function markedSentence(match) {
    const span = document.createElement("span");
    span.className = "snippet-text";
    let at = 0;
    match.marks.forEach(([start, end]) => {
      span.append(document.createTextNode(match.text.slice(at, start)));
      const mark = document.createElement("mark");
      mark.textContent = match.text.slice(start, end);
      span.append(mark);
      at = end;
    });
    span.append(document.createTextNode(match.text.slice(at)));
    return span;
  }

  function hitItem(hit) {
    const li = document.createElement("li");
    li.className = "search-hit";
    const section = document.createElement("span");
    section.className = "muted";
    section.textContent = ` · ${hit.section}`;
    li.append(link(hit.url, hit.title), " ", section);
    if (hit.headings.length) {
      const sub = document.createElement("ul");
      sub.className = "search-headings";
      hit.headings.forEach((h) => {
        const item = document.createElement("li");
        item.append(link(h.url, h.text));
        sub.append(item);
      });
      li.append(sub);
    }
    if ((hit.matches || []).length) {
      const snippets = document.createElement("ul");
      snippets.className = "search-snippets";
      hit.matches.forEach((m) => {
        const item = document.createElement("li");
        if (m.heading) item.append(link(m.heading.url, m.heading.text, "snippet-heading"), ": ");
        item.append(markedSentence(m));
        snippets.append(item);
      });
      li.append(snippets);
    }
    return li;
  }

  // Glossary terms the query names, above the lessons; a definition's TeX shown as its text.
  function glossaryList(terms) {
    const list = document.createElement("ul");
    list.className = "glossary-hits";
    list.setAttribute("aria-label", _("In the glossary"));
    terms.forEach((t) => {
      const item = document.createElement("li");
      const note = document.createElement("span");
      note.className = "muted";
      note.textContent = _("(glossary)");
      item.append(link(t.url, t.term), " ", note, `${_(":")} ${t.definition.replace(/\$/g, "")}`);
      list.append(item);
    });
    return list;
  }

  function renderHits(box, query, payload) {
    box.replaceChildren();
    box.hidden = false;
    if ((payload.glossary || []).length) box.appendChild(glossaryList(payload.glossary));
    const hits = payload.results || [];
    const note = document.createElement("p");
    note.className = "muted";
    note.textContent = hits.length
      ? (hits.length === 1 ? _("1 lesson match “{query}”.", { query }) : _("{n} lessons match “{query}”.", { n: hits.length, query }))
      : _("No lesson matches “{query}”.", { query });
    box.appendChild(note);
    if (!hits.length) return;
    const list = document.createElement("ol");
    list.className = "search-hits";
    hits.forEach((hit) => list.appendChild(hitItem(hit)));
    box.appendChild(list);
  }

  function initSearch(root) {
    const form = root.querySelector("form[data-search-url]");
    const input = form && form.querySelector('input[name="q"]');
    const box = root.querySelector('[data-role="search-results"]');
    if (!form || !input || !box) return;
    let timer = null;
    let latest = 0;
    async function run() {
      const query = input.value.trim();
      const ticket = ++latest;
      const url = new URL(window.location.href);
      if (query) url.searchParams.set("q", query); else url.searchParams.delete("q");
      window.history.replaceState(null, "", url);
      if (!query) {
        box.hidden = true;
        box.replaceChildren();
        return;
      }
      try {
        const lang = encodeURIComponent(window.CollectiveLab.lang || "en");
        const response = await fetch(`${form.dataset.searchUrl}?q=${encodeURIComponent(query)}&lang=${lang}`);
        const payload = await response.json();
        if (ticket !== latest) return; // a newer query is on its way
        if (!response.ok) throw new Error(payload.error || response.statusText);
        renderHits(box, query, payload);
      } catch (err) {
        if (ticket !== latest) return;
        box.hidden = false;
        box.textContent = _("Search failed: {error}", { error: err.message });
      }
    }
    input.addEventListener("input", () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(run, 150);
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      window.clearTimeout(timer);
      run();
    });
  }

  // -- a lesson page ----------------------------------------------------------------------------
  function initLesson(article) {
    const slug = article.dataset.slug;
    const entry = Progress.update(slug, { visited: new Date().toISOString() });
    const button = article.querySelector('[data-role="mark-done"]');
    if (button) {
      const show = (done) => {
        button.setAttribute("aria-pressed", done ? "true" : "false");
        button.textContent = done ? _("✓ Done") : _("Mark as done");
        button.classList.toggle("primary", !done);
      };
      show(!!entry.done);
      button.hidden = false;
      button.addEventListener("click", () => {
        const now = Progress.update(slug, { done: !(Progress.read()[slug] || {}).done });
        show(!!now.done);
      });
    }
    initToc(article);
    printPredictAnswers(article);
  }

  // A printed predict box shows its answer (CSS does it where ::details-content exists; this
  // opens the closed ones for the print and closes them again after it, everywhere else).
  function printPredictAnswers(article) {
    let opened = [];
    window.addEventListener("beforeprint", () => {
      opened = Array.from(article.querySelectorAll(".callout-predict details.answer:not([open])"));
      opened.forEach((d) => { d.open = true; });
    });
    window.addEventListener("afterprint", () => {
      opened.forEach((d) => { d.open = false; });
      opened = [];
    });
  }

  function initToc(article) {
    const toc = article.querySelector('[data-role="toc"]');
    if (!toc) return;
    if (window.matchMedia("(max-width: 900px)").matches) toc.open = false;
    const links = new Map();
    toc.querySelectorAll('a[href^="#"]').forEach((a) => {
      links.set(decodeURIComponent(a.getAttribute("href").slice(1)), a);
    });
    const headings = Array.from(links.keys())
      .map((id) => document.getElementById(id))
      .filter(Boolean);
    if (!headings.length || !("IntersectionObserver" in window)) return;
    const observer = new IntersectionObserver(
      (entries) => {
        entries.forEach((e) => {
          if (!e.isIntersecting) return;
          links.forEach((a) => a.removeAttribute("aria-current"));
          const link = links.get(e.target.id);
          if (link) link.setAttribute("aria-current", "location");
        });
      },
      { rootMargin: "0px 0px -70% 0px" },
    );
    headings.forEach((h) => observer.observe(h));
  }

  // -- start ------------------------------------------------------------------------------------
  const article = document.querySelector('[data-role="lesson"][data-slug]');
  if (article) initLesson(article);
  const course = document.querySelector('[data-role="course"]');
  if (course) initIndex(course);
})();

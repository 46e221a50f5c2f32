// The teacher's class bar (CollectiveLab.ClassBar): the code, join link and QR code (drawn by the
// server), how many students are present, presenter mode, the teacher link, End class.
//
// Presenter mode is for the projector: large type, no site chrome, the player and the class bar
// kept on screen while the views scroll. It asks for fullscreen with the Fullscreen API where
// the browser allows it; where it does not (an iPhone, a refused request), the mode still
// applies in the window. P toggles it; Esc leaves fullscreen, P or the button leaves the mode.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;

  function fullscreenSupported() {
    return Boolean(document.fullscreenEnabled && document.documentElement.requestFullscreen);
  }

  class ClassBar {
    // onEnd(): end the class (after the teacher confirms)
    constructor(bar, code, joinUrl, onEnd) {
      this.bar = bar;
      this.code = code;
      this.joinUrl = joinUrl;
      const q = (role) => bar.querySelector(`[data-role="${role}"]`);
      this.ui = {
        members: q("members"), membersLabel: q("members-label"), presenter: q("presenter"),
        teacherLink: q("teacher-link"), end: q("end"), confirm: q("end-confirm"),
        yes: q("end-yes"), no: q("end-no"), status: q("bar-status"),
      };
      const u = this.ui;
      u.presenter.addEventListener("click", () => this.presenter(!this.presenting));
      u.teacherLink.addEventListener("click", () => this.copyTeacherLink());
      u.end.addEventListener("click", () => this._confirm(true));
      u.no.addEventListener("click", () => this._confirm(false));
      u.yes.addEventListener("click", () => { this._confirm(false); onEnd(); });
      document.addEventListener("keydown", (e) => this._key(e));
      this.presenting = false;
    }

    members(count) {
      const n = Number(count) || 0;
      this.ui.members.textContent = String(n);
      this.ui.membersLabel.textContent = n === 1 ? _("student present") : _("students present");
    }

    status(text) { this.ui.status.textContent = text || ""; }

    presenter(on) {
      this.presenting = Boolean(on);
      document.body.classList.toggle("presenter", this.presenting);
      this.ui.presenter.setAttribute("aria-pressed", String(this.presenting));
      this.ui.presenter.firstChild.textContent = (this.presenting ? _("Leave presenter mode") : _("Presenter mode")) + " ";
      if (this.presenting) global.scrollTo(0, 0); // the code, then the lab
      if (this.presenting && fullscreenSupported() && !document.fullscreenElement) {
        document.documentElement.requestFullscreen().catch(() => {
          this.status(_("Fullscreen was not allowed here; presenter mode fills the window instead."));
        });
      } else if (!this.presenting && document.fullscreenElement && document.exitFullscreen) {
        document.exitFullscreen().catch(() => {});
      }
      global.dispatchEvent(new Event("resize")); // the charts follow the new type size
    }

    // The link that makes another device this class's teacher: the token rides in the fragment,
    // which browsers never send to a server.
    async copyTeacherLink() {
      const token = CL.classStore.teacherToken(this.code);
      const link = `${this.joinUrl}#teacher=${encodeURIComponent(token || "")}`;
      try {
        await navigator.clipboard.writeText(link);
        this.status(_("Teacher link copied. Whoever opens it can drive and end this class: keep it secret."));
      } catch (err) {
        global.prompt(_("Copy the teacher link (keep it secret):"), link);
      }
    }

    _confirm(asking) {
      this.ui.confirm.hidden = !asking;
      this.ui.end.hidden = asking;
      (asking ? this.ui.no : this.ui.end).focus();
    }

    _key(e) {
      if (e.key !== "p" && e.key !== "P") return;
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || this.bar.hidden) return;
      const tag = e.target && e.target.tagName;
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || (e.target && e.target.isContentEditable)) return;
      e.preventDefault();
      this.presenter(!this.presenting);
    }
  }

  CL.ClassBar = ClassBar;
})(window);

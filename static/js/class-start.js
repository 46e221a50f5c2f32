// The /class page: "Start a class" creates a room over Socket.IO and opens it as its teacher,
// keeping the teacher token in this browser (class-link.js). Joining by code is a plain form.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const config = JSON.parse(document.getElementById("class-start-config").textContent);
  const q = (role) => document.querySelector(`[data-role="${role}"]`);
  const button = q("start");
  const error = q("start-error");

  function roomUrl(code) { return config.room_url.replace("CODE", encodeURIComponent(code)); }

  function showError(text) {
    error.textContent = text;
    error.hidden = !text;
  }

  const link = new CL.ClassLink(null, {
    connection: (ok) => {
      button.disabled = !ok;
      showError(ok ? "" : _("Not connected to the server yet; retrying…"));
    },
  });

  button.addEventListener("click", async () => {
    button.disabled = true;
    const ack = await CL.classCall(link.socket, "room_create", { lang: CL.lang });
    if (!ack.ok) {
      showError(_("Could not start a class: {error}", { error: ack.error }));
      button.disabled = false;
      return;
    }
    CL.classStore.keepTeacherToken(ack.code, ack.teacher_token);
    global.location.assign(roomUrl(ack.code));
  });

  // The rooms this browser can still drive (a token is forgotten when its class ends).
  const codes = CL.classStore.teacherCodes();
  if (codes.length) {
    q("mine").hidden = false;
    q("mine-list").replaceChildren(...codes.map((code) => {
      const a = document.createElement("a");
      a.href = roomUrl(code);
      a.textContent = _("Class {code}", { code });
      const li = document.createElement("li");
      li.appendChild(a);
      return li;
    }));
  }
})(window);

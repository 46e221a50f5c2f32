// The classroom's connection (CollectiveLab.ClassLink): one Socket.IO socket on the `/class`
// namespace, what this browser keeps about a room, and joining again after a drop.
//
// The teacher token is kept in localStorage under the room's code, so a reload, or a second
// device that opened the teacher link, keeps control. A student's member_id is kept in
// sessionStorage, so a reload or a reconnect is the same member (one answer per poll). Every
// (re)connection of a page that has joined joins again and hands the ack (state, seq, members,
// poll) to `join`, so a dropped student catches up with the room by itself.
//
// The socket shares the page's one connection with the lab's default namespace when the lab
// is on the page (Socket.IO multiplexes namespaces over one manager).
(function (global) {
  "use strict";
  const CL = global.CollectiveLab || (global.CollectiveLab = {});
  const TEACHER_KEY = "collective-lab:class-teacher:";
  const MEMBER_KEY = "collective-lab:class-member:";
  const ACK_TIMEOUT_MS = 10000;

  // Storage may be refused (private windows, policies): the class then lasts as long as the page.
  function attempt(fn, fallback) {
    try { return fn(); } catch (err) { return fallback; }
  }

  const store = {
    teacherToken: (code) => attempt(() => localStorage.getItem(TEACHER_KEY + code), null),
    keepTeacherToken: (code, token) => attempt(() => localStorage.setItem(TEACHER_KEY + code, token)),
    forgetTeacherToken: (code) => attempt(() => localStorage.removeItem(TEACHER_KEY + code)),
    // The codes of the rooms this browser holds a teacher token for.
    teacherCodes: () => attempt(() => Object.keys(localStorage)
      .filter((k) => k.startsWith(TEACHER_KEY)).map((k) => k.slice(TEACHER_KEY.length)).sort(), []),
    member: (code) => attempt(() => JSON.parse(sessionStorage.getItem(MEMBER_KEY + code)), null),
    keepMember: (code, member) => attempt(() => sessionStorage.setItem(MEMBER_KEY + code, JSON.stringify(member))),
    forgetMember: (code) => attempt(() => sessionStorage.removeItem(MEMBER_KEY + code)),
  };

  function connect() {
    return global.io("/class", {
      transports: ["websocket", "polling"], tryAllTransports: true,
      reconnectionDelayMax: 4000, randomizationFactor: 0.25, timeout: 5000,
    });
  }

  // Emit `event` and resolve with its ack; a server that does not answer resolves a refusal.
  function call(socket, event, payload) {
    return new Promise((resolve) => {
      socket.timeout(ACK_TIMEOUT_MS).emit(event, payload, (err, ack) => {
        if (err) resolve({ ok: false, error: _("the server did not answer; try again") });
        else resolve(ack && typeof ack === "object" ? ack : { ok: false, error: _("the server refused it") });
      });
    });
  }

  class ClassLink {
    // handlers: {join(ack), refused(error), connection(ok), events: {name: fn(payload)}}
    constructor(code, handlers) {
      this.code = code;
      this.handlers = handlers;
      this.token = code ? store.teacherToken(code) : null;
      this.name = "";
      this.role = null;
      this.wanted = false; // join (again) on every connect once the page has joined
      this.socket = connect();
      this.socket.on("connect", () => {
        if (handlers.connection) handlers.connection(true);
        if (this.wanted) this._join();
      });
      this.socket.on("disconnect", () => handlers.connection && handlers.connection(false));
      for (const [name, fn] of Object.entries(handlers.events || {})) this.socket.on(name, fn);
    }

    get isTeacher() { return this.role === "teacher"; }

    join(name) {
      this.wanted = true;
      if (name !== undefined) this.name = name;
      if (this.socket.connected) this._join();
    }

    async _join() {
      const member = store.member(this.code) || {};
      const name = this.name || member.name || "";
      const payload = { code: this.code, lang: CL.lang }; // polls and refusals come in the page's language
      if (this.token) payload.teacher_token = this.token;
      if (name) payload.name = name;
      if (member.member_id) payload.member_id = member.member_id;
      const ack = await call(this.socket, "room_join", payload);
      if (!ack.ok) {
        this.handlers.refused(ack.error || _("the server refused to join"));
        return;
      }
      this.role = ack.role;
      store.keepMember(this.code, { member_id: ack.member_id, name });
      this.handlers.join(ack);
    }

    // Stop joining again, and forget what this browser kept about the room (it has ended).
    leave() {
      this.wanted = false;
      store.forgetTeacherToken(this.code);
      store.forgetMember(this.code);
    }

    forgetToken() {
      this.token = null;
      store.forgetTeacherToken(this.code);
    }

    // A teacher's event: the room's code and the teacher token go with it.
    teach(event, payload) {
      return call(this.socket, event, Object.assign({ code: this.code, teacher_token: this.token }, payload));
    }

    // A member's event: the room's code goes with it.
    send(event, payload) {
      return call(this.socket, event, Object.assign({ code: this.code }, payload));
    }
  }

  CL.ClassLink = ClassLink;
  CL.classStore = store;
  CL.classCall = call;
})(window);

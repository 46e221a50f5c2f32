// The class page, /class/<code>: joins the room and becomes the teacher's view or a student's.
//
// The same HTML serves both. A browser holding the room's teacher token (kept when it started
// the class, or taken from a teacher link's #teacher= fragment) joins as the teacher: the lab
// drives the room (class-drive.js), with the class bar (class-bar.js) and the polls
// (class-polls.js). Anyone else gives an optional name and follows (class-follow.js) and answers
// polls (class-poll-card.js). The socket joins again after every reconnect (class-link.js), and
// the ack's state, members and poll bring the page up to date.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const config = JSON.parse(document.getElementById("lab-config").textContent);
  const urls = config.class;
  const root = document.querySelector('[data-role="class"]');
  const code = root.dataset.code;
  const q = (role) => root.querySelector(`[data-role="${role}"]`);
  const ui = {
    status: q("class-status"), error: q("class-error"), lab: q("lab"), joinCard: q("join-card"),
    joinForm: q("join-form"), name: q("member-name"), ended: q("ended"), endedTitle: q("ended-title"),
    endedText: q("ended-text"), teacherBar: q("teacher-bar"), studentBar: q("student-bar"),
    pollCard: q("poll-card"), polls: q("polls"), teacherKeys: q("teacher-keys"),
  };
  const lab = CL.labPage;
  const parts = {}; // the role's parts, made on the first join: drive, bar, polls | follow, card

  // A teacher link carries the token in its fragment: keep it, and take it out of the address bar.
  if (global.location.hash.startsWith("#teacher=")) {
    CL.classStore.keepTeacherToken(code, decodeURIComponent(global.location.hash.slice(9)));
    history.replaceState(null, "", global.location.pathname + global.location.search);
  }

  function status(text) { ui.status.textContent = text; }
  function showError(text) {
    ui.error.textContent = text || "";
    ui.error.hidden = !text;
  }

  function becomeTeacher(ack) {
    if (!parts.drive) {
      parts.drive = new CL.ClassDrive(link, lab, ui.lab, (text) => parts.bar.status(text));
      parts.bar = new CL.ClassBar(ui.teacherBar, code, urls.join_url, endClass);
      parts.polls = new CL.ClassPolls(ui.polls, link, urls);
      ui.teacherBar.hidden = false;
      ui.polls.hidden = false;
      ui.teacherKeys.hidden = false;
      parts.polls.loadTopics();
    }
    parts.bar.members(ack.members);
    parts.polls.setMembers(ack.members);
    if (ack.state) parts.drive.adopt(ack.state);
    else parts.drive.start();
    status(_("You are teaching class {code}. Everything you do in the lab, the class sees.", { code }));
  }

  function becomeStudent(ack) {
    if (!parts.follow) {
      parts.follow = new CL.ClassFollow(lab, ui.studentBar);
      parts.card = new CL.ClassPollCard(ui.pollCard, link);
      ui.studentBar.hidden = false;
    }
    parts.follow.receive(ack.state, ack.seq);
    status(link.name ? _("You are in class {code} as {name}.", { code, name: link.name }) : _("You are in class {code}.", { code }));
  }

  function onJoin(ack) {
    showError("");
    root.dataset.joined = "yes";
    root.dataset.joinedAs = ack.role;
    ui.joinCard.hidden = true;
    ui.lab.hidden = false;
    if (ack.role === "teacher") becomeTeacher(ack);
    else becomeStudent(ack);
    if (ack.poll) landOnPoll(ack.poll);
  }

  // The poll in a join's ack: the open question, or its result when it has been revealed.
  function landOnPoll(poll) {
    if (poll.question) onPoll(poll);
    if (poll.result) onResult(Object.assign({ poll_id: poll.poll_id }, poll.result));
    else if ("correct" in poll) onResult(poll);
  }

  function onRefused(error) {
    if (/^teacher_token/.test(error)) {
      link.forgetToken(); // not this room's teacher: join as a student instead
      showError(_("{error}. You can join as a student.", { error }));
      askName();
    } else if (/^code/.test(error)) {
      link.leave();
      showEnded(_("No class here"), _("{error}. Check the code on the teacher's screen.", { error }));
    } else {
      showError(_("Could not join: {error}", { error }));
      askName();
    }
  }

  function askName() {
    ui.joinCard.hidden = false;
    status(_("Class {code}: join to follow the teacher.", { code }));
    ui.name.focus();
  }

  function showEnded(title, text) {
    root.dataset.joined = "ended";
    for (const part of [ui.lab, ui.joinCard, ui.teacherBar, ui.studentBar, ui.pollCard, ui.polls]) part.hidden = true;
    document.body.classList.remove("presenter");
    lab.setLocked(true);
    lab.client.cancel();
    ui.endedTitle.textContent = title;
    ui.endedText.textContent = text;
    ui.ended.hidden = false;
    status(title);
    ui.ended.focus();
  }

  function onEnded() {
    const teacher = link.isTeacher;
    link.leave();
    showEnded(_("The class has ended"), teacher ? _("You ended the class. The students see that it ended.")
      : _("The teacher ended the class. Thank you for taking part."));
  }

  async function endClass() {
    const ack = await link.teach("room_end", {});
    if (!ack.ok) parts.bar.status(_("Could not end the class: {error}", { error: ack.error }));
  }

  function onPoll(payload) {
    if (parts.polls) parts.polls.onPoll(payload);
    if (parts.card) parts.card.onPoll(payload);
  }

  function onResult(payload) {
    if (parts.polls) parts.polls.onResult(payload);
    if (parts.card) parts.card.onResult(payload);
  }

  function onConnection(ok) {
    if (root.dataset.joined !== "yes") return;
    if (!ok) status(_("Connection lost — reconnecting… The page catches up with the class when it is back."));
  }

  const link = new CL.ClassLink(code, {
    join: onJoin,
    refused: onRefused,
    connection: onConnection,
    events: {
      room_state: (p) => {
        if (parts.drive && link.isTeacher) parts.drive.adopt(p.state);
        else if (parts.follow) parts.follow.receive(p.state, p.seq);
      },
      room_members: (p) => {
        if (parts.bar) parts.bar.members(p.count);
        if (parts.polls) parts.polls.setMembers(p.count);
      },
      poll: onPoll,
      poll_tally: (p) => parts.polls && parts.polls.onTally(p),
      poll_result: onResult,
      room_ended: onEnded,
    },
  });

  ui.joinForm.addEventListener("submit", (e) => {
    e.preventDefault();
    link.join(ui.name.value.trim());
  });
  // The teacher, and a student coming back (a reload), join at once; a new student first names.
  if (link.token || CL.classStore.member(code)) link.join();
  else askName();
})(window);

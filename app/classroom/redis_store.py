"""The classroom store shared by several server processes: Redis, one Lua script per operation.

Keys, for room ABC234 (all expire together, `ttl_s` after the room's last event):

- `class:ABC234` hash: `digest`, `seq`, `state` (JSON), `poll` (JSON), `poll_id`, `revealed`;
- `class:ABC234:conns` hash: sid -> `{"m": member_id, "r": role, "p": process, "n": name}`;
- `class:ABC234:answers` hash: member_id -> `{"answer", "keys", "right"}` for the open poll;
- `class:ABC234:tally` hash: `k:<key>` -> count, `answered`, `right`, `seq` (answers' script);
- `class:proc:<process>`: a process's heartbeat, expiring HEARTBEAT_TTL_S after its last beat.

A script runs atomically in Redis: no other command runs between its reads and its writes, so
two processes joining, driving or answering at once never lose an update, and no retry loop
(WATCH/MULTI) is needed when 200 students answer in the same second. The scripts read
heartbeat keys they are not passed, so this needs one Redis, not Redis Cluster.
"""

from __future__ import annotations

import functools
import json

import redis

from .store import (
    Answer,
    Connection,
    NoRoom,
    PollClosed,
    Presence,
    Room,
    RoomFull,
    StoreUnavailable,
    Tally,
)

# Counts the distinct live members of a room, dropping connections of lapsed processes.
# ARGV[1] is the heartbeat keys' prefix; `skip` a sid left out of the count.
LIVE = """
local function live(conns, proc_prefix, skip)
  local all = redis.call('HGETALL', conns)
  local alive, seen, students, teachers = {}, {}, {}, {}
  local ns, nt, nm = 0, 0, 0
  for i = 1, #all, 2 do
    local c = cjson.decode(all[i + 1])
    if alive[c.p] == nil then
      alive[c.p] = redis.call('EXISTS', proc_prefix .. c.p) == 1
    end
    if not alive[c.p] then
      redis.call('HDEL', conns, all[i])
    elseif all[i] ~= skip then
      if not seen[c.m] then seen[c.m] = true; nm = nm + 1 end
      local role = c.r == 'teacher' and teachers or students
      if not role[c.m] then role[c.m] = true end
    end
  end
  for _ in pairs(students) do ns = ns + 1 end
  for _ in pairs(teachers) do nt = nt + 1 end
  return ns, nt, nm, seen, students, teachers
end
local function touch(ttl_ms)
  for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ttl_ms) end
end
"""

CREATE = (
    LIVE
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'digest', ARGV[2], 'seq', 0)
touch(ARGV[3])
return 1
"""
)

JOIN = (
    LIVE
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
local sid, conn, cap = ARGV[2], cjson.decode(ARGV[3]), tonumber(ARGV[4])
local ns, nt, nm, seen, students, teachers = live(KEYS[2], ARGV[1], sid)
if not seen[conn.m] and nm >= cap then return {-2} end
redis.call('HSET', KEYS[2], sid, ARGV[3])
touch(ARGV[5])
if conn.r == 'teacher' then
  if not teachers[conn.m] then nt = nt + 1 end
elseif not students[conn.m] then ns = ns + 1 end
return {0, ns, nt}
"""
)

COUNT = (
    LIVE
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
if ARGV[2] ~= '' then redis.call('HDEL', KEYS[2], ARGV[2]) end
local ns, nt = live(KEYS[2], ARGV[1], '')
return {0, ns, nt}
"""
)

DRIVE = (
    LIVE
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HSET', KEYS[1], 'state', ARGV[2])
touch(ARGV[3])
return seq
"""
)

OPEN_POLL = (
    LIVE
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('HSET', KEYS[1], 'poll', ARGV[2], 'poll_id', ARGV[3], 'revealed', 0)
redis.call('DEL', KEYS[3], KEYS[4])
touch(ARGV[4])
return 0
"""
)

# ARGV: prefix, poll_id, member_id, answer record (JSON), ttl_ms
ANSWER = (
    LIVE
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
local current = redis.call('HGET', KEYS[1], 'poll_id') or ''
if current ~= ARGV[2] then return {-2, current} end
if redis.call('HGET', KEYS[1], 'revealed') == '1' then return {-3, current} end
local function count(record, by)
  for _, key in ipairs(record.keys) do
    if redis.call('HINCRBY', KEYS[4], 'k:' .. key, by) <= 0 then
      redis.call('HDEL', KEYS[4], 'k:' .. key)
    end
  end
  if record.right then redis.call('HINCRBY', KEYS[4], 'right', by) end
end
local old = redis.call('HGET', KEYS[3], ARGV[3])
if old then count(cjson.decode(old), -1) else redis.call('HINCRBY', KEYS[4], 'answered', 1) end
count(cjson.decode(ARGV[4]), 1)
redis.call('HINCRBY', KEYS[4], 'seq', 1)
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
touch(ARGV[5])
return {0, current, redis.call('HGETALL', KEYS[4])}
"""
)

REVEAL = (
    LIVE
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
local current = redis.call('HGET', KEYS[1], 'poll_id') or ''
if current ~= ARGV[2] then return {-2, current} end
redis.call('HSET', KEYS[1], 'revealed', 1)
touch(ARGV[3])
return {0, current, redis.call('HGETALL', KEYS[4])}
"""
)

END = (
    LIVE
    + """
local existed = redis.call('EXISTS', KEYS[1])
redis.call('DEL', unpack(KEYS))
return existed
"""
)


def _unavailable(method):
    """Turn Redis' errors into StoreUnavailable: the client is told the store is down."""

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except redis.RedisError as e:
            raise StoreUnavailable(f"the classroom store (Redis) is unavailable: {e}") from None

    return wrapper


class RedisStore:
    """Rooms in Redis at `url`, under keys that start with `prefix`."""

    def __init__(self, url: str, prefix: str = "class:") -> None:
        self.redis = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=5, socket_connect_timeout=5
        )
        self.prefix = prefix
        self._proc = f"{prefix}proc:"
        scripts = ("CREATE", "JOIN", "COUNT", "DRIVE", "OPEN_POLL", "ANSWER", "REVEAL", "END")
        self._scripts = {n: self.redis.register_script(globals()[n]) for n in scripts}

    def _keys(self, code: str) -> list[str]:
        room = f"{self.prefix}{code}"
        return [room, f"{room}:conns", f"{room}:answers", f"{room}:tally"]

    def _run(self, script: str, code: str, *args) -> object:
        return self._scripts[script](keys=self._keys(code), args=[self._proc, *args])

    @_unavailable
    def heartbeat(self, process: str, ttl_s: float) -> None:
        self.redis.set(self._proc + process, 1, px=_ms(ttl_s))

    @_unavailable
    def forget_process(self, process: str) -> None:
        self.redis.delete(self._proc + process)

    @_unavailable
    def create(self, code: str, digest: str, ttl_s: float) -> bool:
        return self._run("CREATE", code, digest, _ms(ttl_s)) == 1

    @_unavailable
    def room(self, code: str) -> Room | None:
        raw = self.redis.hgetall(self._keys(code)[0])
        if "digest" not in raw:
            return None
        return Room(
            code,
            raw["digest"],
            state=json.loads(raw["state"]) if raw.get("state") else None,
            seq=int(raw.get("seq", 0)),
            poll=json.loads(raw["poll"]) if raw.get("poll") else None,
            revealed=raw.get("revealed") == "1",
        )

    @_unavailable
    def end(self, code: str) -> bool:
        return self._run("END", code) == 1

    @_unavailable
    def drive(self, code: str, state: dict, ttl_s: float) -> int:
        seq = self._run("DRIVE", code, _json(state), _ms(ttl_s))
        if seq == -1:
            raise NoRoom(code)
        return int(seq)

    @_unavailable
    def join(self, code: str, sid: str, conn: Connection, cap: int, ttl_s: float) -> Presence:
        entry = {"m": conn.member_id, "r": conn.role, "p": conn.process, "n": conn.name}
        status, *counts = self._run("JOIN", code, sid, _json(entry), cap, _ms(ttl_s))
        if status == -1:
            raise NoRoom(code)
        if status == -2:
            raise RoomFull()
        return Presence(*counts)

    @_unavailable
    def leave(self, code: str, sid: str) -> Presence | None:
        status, *counts = self._run("COUNT", code, sid)
        return Presence(*counts) if status == 0 else None

    @_unavailable
    def presence(self, code: str) -> Presence | None:
        status, *counts = self._run("COUNT", code, "")
        return Presence(*counts) if status == 0 else None

    @_unavailable
    def open_poll(self, code: str, poll: dict, ttl_s: float) -> None:
        if self._run("OPEN_POLL", code, _json(poll), poll["poll_id"], _ms(ttl_s)) == -1:
            raise NoRoom(code)

    @_unavailable
    def answer(
        self, code: str, poll_id: str, member_id: str, answer: Answer, ttl_s: float
    ) -> Tally:
        record = _json(answer.as_dict())
        return _tally_of(code, self._run("ANSWER", code, poll_id, member_id, record, _ms(ttl_s)))

    @_unavailable
    def my_answer(self, code: str, member_id: str) -> Answer | None:
        raw = self.redis.hget(self._keys(code)[2], member_id)
        return Answer.from_dict(json.loads(raw)) if raw else None

    @_unavailable
    def tally(self, code: str) -> Tally:
        return _tally(self.redis.hgetall(self._keys(code)[3]))

    @_unavailable
    def reveal(self, code: str, poll_id: str, ttl_s: float) -> Tally:
        return _tally_of(code, self._run("REVEAL", code, poll_id, _ms(ttl_s)))


def _tally_of(code: str, reply: list) -> Tally:
    """Read a poll script's reply: the tally, or the reason it refused."""
    status = reply[0]
    if status == -1:
        raise NoRoom(code)
    if status in (-2, -3):
        raise PollClosed("replaced" if status == -2 else "revealed", reply[1] or None)
    flat = reply[2]
    return _tally(dict(zip(flat[::2], flat[1::2], strict=True)))


def _tally(fields: dict[str, str]) -> Tally:
    counts = {k[2:]: int(v) for k, v in fields.items() if k.startswith("k:") and int(v) > 0}
    number = {k: int(fields.get(k, 0)) for k in ("answered", "right", "seq")}
    return Tally(counts, **number)


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))  # ASCII: no text Redis cannot take


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))

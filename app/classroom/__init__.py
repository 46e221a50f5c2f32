"""The classroom: rooms a teacher drives and students follow, with polls. No web code here.

A room is a short code; the teacher holds a secret token. The room's state (the lab parameters,
the step, play/pause and speed), its members and its poll live in a store: in memory for one
process, in Redis when several processes serve one app (docs/classroom.md).

- `codes`: room codes and teacher tokens.
- `checks`: what an event may carry; `ClassError` names the field it refuses.
- `rooms`: `Classroom`, the rules, one method per event.
- `polls`: a bank question put to the room: drawn, graded, tallied, revealed.
- `store`: the store interface and its records; `memory_store`, `redis_store` implement it.
"""

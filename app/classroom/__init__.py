"""The classroom: rooms a teacher drives and students follow, with polls. No web code here.

A room is a short code; the teacher holds a secret token. The room's state (the lab parameters,
the step, play/pause and speed), its members and its poll live in a store: in memory for one
process, in Redis when several processes serve one app (docs/classroom.md).
"""

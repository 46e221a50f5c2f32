"""The Redis fixture is a real server: what one client writes, another connection reads."""

import redis


def test_redis_fixture_is_a_real_server(redis_url):
    with redis.Redis.from_url(redis_url) as writer, redis.Redis.from_url(redis_url) as reader:
        writer.set("room:ABC234", "state")
        assert reader.get("room:ABC234") == b"state"
        assert reader.info("server")["tcp_port"] == int(redis_url.rsplit(":", 1)[1].split("/")[0])

"""The embedded server (daphne on plain HTTP, `make run`) refuses a TLS handshake at once instead of
leaving it unanswered (issue 24 item 2).

Dydu's chatbox (CV5) always tries `wss://{server}/servlet//chatWs` first and falls back to polling only
when that fails. Twisted's HTTP parser reads a ClientHello as the start of a request line and waits for a
line end that never comes: the browser waited for its own handshake timeout (30 s in Chromium) before the
chatbox polled, and a visitor handed over to an operator saw nothing meanwhile.

A TLS connection opens with a record of type 22 (handshake, byte 0x16), which no HTTP request line starts
with. On such a first byte the connection gets TLS's own refusal, a fatal `protocol_version` alert the
browser understands (ERR_SSL_PROTOCOL_ERROR), and is closed; everything else goes to daphne untouched.
When daphne itself terminates TLS (`-e ssl:…`) or sits behind nginx, the bytes seen here are already
plain HTTP and nothing changes.
"""

import logging
import sys

log = logging.getLogger(__name__)

TLS_HANDSHAKE_RECORD = b"\x16"
# A TLS record (type 21, alert; version 3.1; length 2): level fatal (2), description protocol_version (70).
TLS_PROTOCOL_VERSION_ALERT = b"\x15\x03\x01\x00\x02\x02\x46"


def install_tls_refusal() -> bool:
    """Make daphne's HTTP factory refuse TLS on its connections, when daphne's server is loaded (never
    importing Twisted where it is not). Every connection is built by `HTTPFactory.buildProtocol`."""
    if "daphne.server" not in sys.modules:
        return False
    from daphne import http_protocol

    factory = http_protocol.HTTPFactory
    if getattr(factory, "refuses_tls", False):
        return True
    build = factory.buildProtocol

    def buildProtocol(self, addr):
        protocol = build(self, addr)
        if protocol is not None:
            refuse_tls_on(protocol)
        return protocol

    factory.buildProtocol = buildProtocol
    factory.refuses_tls = True
    return True


def refuse_tls_on(protocol) -> None:
    """Look at the connection's first bytes only: a TLS handshake is refused, anything else goes on as it
    came (the instance's own dataReceived is put back, so later reads cost nothing)."""
    received = protocol.dataReceived

    def first_bytes(data: bytes):
        del protocol.dataReceived  # the class's method again, from the next read on
        if data.startswith(TLS_HANDSHAKE_RECORD):
            # Twisted's generic HTTP protocol passes the connection on to its channel: the transport is there.
            refuse(getattr(protocol, "_channel", protocol).transport)
            return None
        return received(data)

    protocol.dataReceived = first_bytes


def refuse(transport) -> None:
    peer = transport.getPeer()
    log.debug("TLS handshake on the plain-HTTP port from %s refused", getattr(peer, "host", peer))
    transport.write(TLS_PROTOCOL_VERSION_ALERT)
    transport.loseConnection()

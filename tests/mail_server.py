"""A real SMTP server for the tests that need a mail to go out (not Django's memory backend): it listens on a
free local port, speaks enough SMTP for smtplib (EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT) and keeps
each message it accepted, parsed. `refuse` makes it answer 554 to DATA, as a server refusing a message does."""

import email
import email.policy
import socket
import socketserver
import threading


class MailServer:
    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.refuse = False
        server = self

        class Session(socketserver.StreamRequestHandler):
            def reply(self, line: str):
                self.wfile.write(line.encode("ascii") + b"\r\n")

            def handle(self):
                self.reply("220 localhost ESMTP test server")
                sender, recipients = "", []
                while line := self.rfile.readline():
                    command = line.decode("ascii", "replace").strip()
                    verb = command[:4].upper()
                    if verb == "EHLO":
                        self.reply("250-localhost")
                        self.reply("250 8BITMIME")
                    elif verb == "HELO" or verb in ("NOOP", "RSET"):
                        sender, recipients = ("", []) if verb == "RSET" else (sender, recipients)
                        self.reply("250 OK")
                    elif verb == "MAIL":
                        sender, recipients = command.split(":", 1)[1].strip().split()[0].strip("<>"), []
                        self.reply("250 OK")
                    elif verb == "RCPT":
                        recipients.append(command.split(":", 1)[1].strip().strip("<>"))
                        self.reply("250 OK")
                    elif verb == "DATA":
                        self.reply("354 End data with <CR><LF>.<CR><LF>")
                        data = self.read_data()
                        if server.refuse:
                            self.reply("554 Message refused by the test server")
                            continue
                        server.envelopes.append((sender, recipients))
                        server.messages.append(email.message_from_bytes(data, policy=email.policy.default))
                        self.reply("250 OK: queued")
                    elif verb == "QUIT":
                        self.reply("221 Bye")
                        return
                    else:
                        self.reply("502 Command not implemented")

            def read_data(self) -> bytes:
                lines = []
                while (line := self.rfile.readline()) not in (b".\r\n", b".\n", b""):
                    lines.append(line[1:] if line.startswith(b"..") else line)  # RFC 5321's dot-stuffing
                return b"".join(lines)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Session)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self) -> "MailServer":
        self._thread.start()
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()


def free_port() -> int:
    """A local port nothing listens on (for a mail server that is down)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]

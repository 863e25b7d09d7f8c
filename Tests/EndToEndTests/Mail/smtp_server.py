"""A mail server on loopback for fleetd's end-to-end tests: aiosmtpd
(PyPI) with STARTTLS required and AUTH PLAIN/LOGIN required over TLS.

usage: smtp_server.py CERT KEY USER PASSWORD LOG CONTROL

Prints its port on the first line of stdout. Every message taken is
appended to LOG as one JSON object (mail_from, rcpt_tos, auth, tls, data)
before the server answers 250. CONTROL (a JSON file, re-read at each
message) may hold "fail": N (answer 451 to the next N messages, counted
down in the file) and "delay_s": S (wait S seconds after logging a message
before answering 250, so that a test can kill the client meanwhile).
"""
import asyncio
import json
import os
import ssl
import sys

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

cert, key, user, password, log_path, control_path = sys.argv[1:7]


def control():
    try:
        with open(control_path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def set_control(c):
    with open(control_path + ".tmp", "w") as f:
        json.dump(c, f)
    os.rename(control_path + ".tmp", control_path)


class Handler:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.endswith("@refused.test"):
            return "550 5.1.1 no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        c = control()
        if c.get("fail", 0) > 0:
            c["fail"] -= 1
            set_control(c)
            return "451 4.3.0 try again later"
        entry = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "auth": session.authenticated,
            "tls": session.ssl is not None,
            "data": envelope.content.decode("utf-8", "replace"),
        }
        with open(log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")
        if c.get("delay_s"):
            await asyncio.sleep(c["delay_s"])
        return "250 2.0.0 accepted"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = (
        isinstance(auth_data, LoginPassword)
        and auth_data.login.decode() == user
        and auth_data.password.decode() == password
    )
    return AuthResult(success=ok, handled=False)


async def main():
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(
            Handler(),
            hostname="mail.test",
            tls_context=context,
            require_starttls=True,
            authenticator=authenticator,
            auth_required=True,
            auth_require_tls=True,
        ),
        "127.0.0.1",
        0,
    )
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())

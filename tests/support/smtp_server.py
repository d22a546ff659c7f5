"""A private SMTP server for the SMTP Sampler tests (Debian's python3-aiosmtpd).

Usage: smtp_server.py PORT FOLDER [--user U --password P] [--cert C --key K]
       [--implicit-tls] [--reject PREFIX]

Listens on 127.0.0.1:PORT. Each accepted message is written to FOLDER/<n>.eml with its
envelope in FOLDER/<n>.env (`auth=yes|no`, MAIL FROM, then one RCPT TO per
line). With --cert/--key the
server requires STARTTLS, or speaks TLS from the start with --implicit-tls. With --user the
server offers AUTH PLAIN/LOGIN (also without TLS) and accepts that one login. Recipients
whose address starts with --reject are refused with 550.
"""

import argparse
import asyncio
import os
import ssl

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Store:
    def __init__(self, folder, reject):
        self.folder = folder
        self.reject = reject
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.reject and address.startswith(self.reject):
            return "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        base = os.path.join(self.folder, str(self.count))
        with open(base + ".eml.part", "wb") as f:
            f.write(envelope.original_content)
        security = "auth=%s" % ("yes" if session.authenticated else "no")
        with open(base + ".env", "w") as f:
            f.write("\n".join([security, envelope.mail_from] + envelope.rcpt_tos) + "\n")
        os.rename(base + ".eml.part", base + ".eml")
        return "250 Message accepted for delivery"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("folder")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--implicit-tls", action="store_true")
    parser.add_argument("--reject")
    args = parser.parse_args()

    context = None
    if args.cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)

    def authenticate(server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login.decode() == args.user
            and auth_data.password.decode() == args.password
        )
        return AuthResult(success=ok, handled=False)

    options = {"auth_require_tls": False}
    if args.user:
        options["authenticator"] = authenticate
    if context is not None and not args.implicit_tls:
        # Nothing is accepted before STARTTLS, so a delivered message proves the upgrade.
        options["tls_context"] = context
        options["require_starttls"] = True
    controller = Controller(
        Store(args.folder, args.reject),
        hostname="127.0.0.1",
        port=args.port,
        ssl_context=context if args.implicit_tls else None,
        **options,
    )
    controller.start()
    asyncio.new_event_loop().run_forever()


if __name__ == "__main__":
    main()

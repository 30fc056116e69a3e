"""Notifications (issue 37): telling a player by e-mail or by the browser's push that a game
needs them, when their page is not open.

From the game's side a notice is a row of the outbox, written in the transaction of the
action that caused it and built from that seat's view and events only (facts.py); from
there the sender's own task (outbox.py) makes the deliveries each player asked for
(prefs.py, planning.py), words them in their language (texts.py) and sends them by SMTP
(mail.py) or Web Push (push.py), claimed before sending and retried with back-off, so
that neither a crash nor a mail server that is down loses one or sends one twice, and no
game ever waits for either. Addresses are confirmed and unsubscribed by signed links
(links.py).
"""

"""The server's face to the network: HTTP routes, the WebSocket endpoint, the request bodies and
the middleware that checks a request's origin.

Routes read and answer; the game's changes happen in `tables/`, what is stored in `data/`."""

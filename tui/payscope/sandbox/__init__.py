"""The local, stateful sandbox of the payment service (an ASGI application).

Layout: `server.py` (`Sandbox`, `SandboxConfig`: the in-process interface), `app.py`
(`create_app(state)`), `state.py` (`SandboxState`: database, clock, credentials, limits,
faults, outbox, background loop), `middleware.py` (auth, rate limits, faults), `outbox.py`
(events and signed delivery with retries: concurrent, bounded, in order per object; the state
makes it, and it sees the state only as `outbox.Host`) with its HTTP client `webhook_http.py`,
`cards.py` (test cards), `method_types.py` (every other way to pay: flows and test values)
with `methods.py` (reading a request's `payment_method_data`), `seed.py`, and one module or
package per resource under `resources/`.

How to add a resource (e.g. disputes)
-------------------------------------
1. Write `tui/payscope/sandbox/resources/disputes.py` (a big one: a package `disputes/` with
   `routes.py`, `engine.py`, `store.py`, `jobs.py`, `seed.py`, as `subscriptions/`) ending with
   `RESOURCE = Resource(name="disputes", router=router, schema=SCHEMA, jobs=(...), seed=...)`
   (`payscope.sandbox.resource`), then add ONE line to `RESOURCES` in
   `tui/payscope/sandbox/resources/__init__.py`. That is the only shared file you touch.
2. Routes: `router = APIRouter(tags=["disputes"])`; handlers are `async def` taking
   `request: Request` and, for a JSON body, a request model from `payscope.api.models` as a
   parameter (`body: DisputeListRequest | None = None` when the body is optional): FastAPI
   validates it and the app maps failures to IR_01 (missing) / IR_04 (bad value). For query
   strings use `responses.validate_query(Model, request.query_params, many=(...))`.
   Answer with `responses.respond(obj)` or `responses.respond_list(json_rows, total)`.
   A body no API model covers (a sandbox control's) gets its model in the package's
   `bodies.py`, read with `_support.validate(Model, await read_object(...))`; a validator that
   answers in the sandbox's own words raises `_support.refused(missing(...) or invalid(...))`.
   Four controls still check their bodies by hand, because the order of their answers is not
   a model's: a payment's redirect (the payment's 404 and state come before `result`), a
   network-opened dispute (the payment is named before the reason is checked), the clock's
   advance (its allowed range is the clock's) and the webhook target (the body as a whole names
   `url`, `attach` or `detach`).
3. State: `state = state_of(request)` (`payscope.sandbox.state`). Tables: `schema` is a
   `CREATE TABLE/INDEX IF NOT EXISTS` script run at start-up. Reads: `state.db.conn.execute`.
   Writes: `with state.db.transaction() as conn:` and never `await` inside it (one shared
   connection on the loop thread; handlers must not interleave inside a transaction).
   Keep the public object as JSON in a `data` column, filter columns beside it, an index per
   list filter (`(column, created)`).
4. Clock: `state.clock.now()` (epoch seconds, sandbox time) and `state.clock.now_iso()`;
   `clock.iso(ts)` formats, `clock.parse_iso(text)` parses. Never `time.time()`.
5. Ids: `ids.new_id("dp")` -> `dp_<20 chars>`; pass `ctx.rng` when seeding (deterministic).
6. Events: inside the same transaction as the change,
   `outbox.emit(conn, state, event_type="dispute_opened", event_class="disputes",
   object_id=dispute_id, obj=data)`. Delivery, signing, retries and the events API follow.
   One event per (object, event type, `change_key=""`): a repeat is ignored (pass a
   `change_key` naming the change when an object can send one type twice, as a payment's
   partial captures do). Delivery is concurrent, in order per object. Emit once the object
   is complete:
   the event carries it exactly as GET answers right after the change
   (`tests/sandbox/test_webhook_objects.py` checks every event type).
7. Errors: raise from `payscope.sandbox.errors`: `not_found("Dispute", id)` (404 IR_05),
   `missing(field)` (IR_01), `invalid(field, value, allowed)` (IR_04),
   `bad_state(action, resource, current, expected)` (400), `conflict(code, message)` (409),
   `forbidden(message)` (403) or `SandboxError(status, type, code, message)`.
8. Timed work: `Job(name, next_due(conn) -> float | None, run(state, now) -> int,
   due_between(conn, start, end) -> list[Due])`; the background loop runs it as real time
   passes and `/_sandbox/clock/advance` steps through due times in order. `run` opens its own
   transactions. `due_between` says what `run` would do in that span (the clock's upcoming
   preview lists it; `tests/sandbox/test_jobs_due.py` holds every job to having one).
9. Seeding: `seed(ctx: SeedContext)` runs inside the seed transaction on `ctx.conn`; use
   `ctx.rng`, `ctx.now` (start of today, sandbox time), `ctx.n`; write with `executemany`;
   read what earlier seeders left in `ctx.shared` (`"customers"`: ids, `"payments"`: a list
   of `payments.seed.SeededPayment`). Seeds write no events.
10. Hooks already waiting for part 2: `dispute_schedule(payment_id, due_at, reason,
    opened_at)` rows are written for the dispute test card (see `resources/payments/`);
    payment retrieve lists rows of a `disputes(payment_id, data)` table when it exists.
11. Publishable keys are refused by the middleware everywhere except payment retrieve and
    confirm, so new routes need no extra check. Routes under `/_sandbox/` never get faults.
"""

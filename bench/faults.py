"""Exactly-once creation through `ApiClient` while the sandbox injects faults (issue 14).

    .venv/bin/python bench/faults.py [--payments 300] [--fault-rate 0.3] [--seed 14]
                                     [--concurrency 8] [--attempts 8]

A sandbox over real HTTP (uvicorn on loopback) with `--fault-rate`: 500, 502, 503 and 429
answers and dropped connections before the handler runs, and "lost" answers: the payment is
created and committed, then the connection is dropped without a byte of answer.

1. `--payments` payments created through `ApiClient.payments.create`, each with its own
   `payment_id` (`--concurrency` at a time, `--attempts` attempts per call). Printed, per order:
   created (the call returned that payment), lost (the call raised), duplicated (stored payments
   beyond one per order, counted in the sandbox's database), the time taken, and how many
   answers were lost after a commit and recovered (a retry answered HE_01, then the payment
   read). Target: created = N, lost = 0, duplicated = 0.
2. For contrast, no target: the same orders with no `payment_id`, (a) sent by the same client
   told the create is safe to repeat (what a client without idempotency does): duplicated is
   what the "lost" fault exposes; (b) with the client's default for such a create (repeated only
   when the service cannot have acted on it): the calls that raised, and how many of those had
   created their payment all the same.

Exits 1 when the target of 1 is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from results import Figure, record  # bench/ is on the path when run as a script

from payscope.api import ApiClient
from payscope.api.errors import ApiError, ClientError
from payscope.api.models.payments import PaymentCreateRequest
from payscope.api.retry import Replay
from payscope.sandbox.server import Sandbox, SandboxConfig

KEY = "snd_bench_faults_0123456789"


def order_body(run: str, i: int, *, payment_id: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "amount": 1000 + i,
        "currency": "USD",
        "confirm": True,
        "payment_method": "card",
        "payment_method_data": {
            "card": {
                "card_number": "4242424242424242",
                "card_exp_month": "12",
                "card_exp_year": "2040",
                "card_cvc": "123",
            }
        },
        "billing": {"address": {"country": "US"}},
        "metadata": {"bench_run": run, "bench_order": str(i)},
    }
    if payment_id:
        body["payment_id"] = f"{run}_{i:05d}"
    return body


def stored_per_order(box: Sandbox, run: str) -> Counter[str]:
    rows = box.state.db.conn.execute(
        "SELECT json_extract(data, '$.metadata.bench_order') FROM payments "
        "WHERE json_extract(data, '$.metadata.bench_run') = ?",
        (run,),
    ).fetchall()
    return Counter(str(r[0]) for r in rows)


async def run_orders(
    box: Sandbox, url: str, run: str, n: int, concurrency: int, attempts: int, mode: str
) -> dict[str, Any]:
    """`mode`: "keyed" (payment_id), "naive" (none, repeated anyway), "unsafe" (none, the
    client's default)."""
    api = ApiClient(
        url,
        KEY,
        profile_id=box.credentials.profile_id,
        merchant_id=box.credentials.merchant_id,
        max_attempts=attempts,
        max_retry_time=60,
        rng=random.Random(1).random,
        journal_size=100 * n,
    )
    returned: dict[int, str] = {}
    raised: dict[int, str] = {}
    orders = iter(range(n))

    async def worker() -> None:
        for i in orders:
            try:
                if mode == "keyed":
                    body = PaymentCreateRequest.model_validate(order_body(run, i, payment_id=True))
                    payment = await api.payments.create(body)
                    assert payment.payment_id == f"{run}_{i:05d}" and payment.amount == 1000 + i
                    returned[i] = payment.payment_id
                else:  # no payment_id: repeated as if it were safe, or the client's default
                    data = await api.request(
                        "POST",
                        "/payments",
                        body={
                            **order_body(run, i, payment_id=False),
                            "profile_id": box.credentials.profile_id,
                        },
                        replay=Replay.KEYED if mode == "naive" else Replay.UNSAFE,
                    )
                    returned[i] = data["payment_id"]
            except (ApiError, ClientError) as exc:
                raised[i] = type(exc).__name__

    started = time.perf_counter()
    try:
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    finally:
        await api.aclose()
    elapsed = time.perf_counter() - started
    stored = stored_per_order(box, run)
    entries = api.journal.entries()
    posts = [e for e in entries if e.method == "POST"]
    return {
        "created": len(returned),
        "lost": len(raised),
        "raised": Counter(raised.values()),
        "duplicated": sum(count - 1 for count in stored.values()),
        "stored_orders": len(stored),
        "raised_but_created": sum(1 for i in raised if stored[str(i)] > 0),
        "elapsed": elapsed,
        "attempts": len(posts),
        "dropped": sum(1 for e in posts if e.error is not None),
        "recovered": sum(1 for e in posts if e.status == 409),
        "statuses": Counter(e.status for e in entries if e.status is not None and e.status >= 400),
    }


def raised(run: dict[str, Any]) -> str:
    return f" ({', '.join(f'{k} {v}' for k, v in run['raised'].items())})" if run["raised"] else ""


async def main(args: argparse.Namespace) -> int:
    n = args.payments
    with tempfile.TemporaryDirectory() as tmp:
        box = Sandbox(
            SandboxConfig(
                data_dir=Path(tmp) / "sandbox",
                api_key=KEY,
                rate_limit=0,
                fault_rate=args.fault_rate,
                fault_seed=args.seed,
            )
        )
        url = await box.start()
        try:
            runs = {
                mode: await run_orders(box, url, mode, n, args.concurrency, args.attempts, mode)
                for mode in ("keyed", "naive", "unsafe")
            }
        finally:
            await box.stop()

    keyed, naive, unsafe = runs["keyed"], runs["naive"], runs["unsafe"]
    ok = keyed["created"] == n and keyed["lost"] == 0 and keyed["duplicated"] == 0
    ok = ok and keyed["stored_orders"] == n
    mark = "✓" if ok else "✗"
    print(
        f"fault rate {args.fault_rate}, seed {args.seed}: {n} payments through ApiClient with "
        f"payment_id ({args.concurrency} at a time, up to {args.attempts} attempts each)"
    )
    print(
        f"  created {keyed['created']}, lost {keyed['lost']}{raised(keyed)}, "
        f"duplicated {keyed['duplicated']}, stored orders {keyed['stored_orders']} "
        f"in {keyed['elapsed']:.1f} s; {keyed['attempts']} POST attempts, "
        f"{keyed['dropped']} connections dropped, {keyed['recovered']} lost answers recovered "
        f"(HE_01, then read); error answers {dict(keyed['statuses'])}"
    )
    print(f"  exactly once: {mark} (target: created {n}, lost 0, duplicated 0)")
    print(
        f"contrast, no payment_id but repeated as if safe: created {naive['created']}, "
        f"lost {naive['lost']}{raised(naive)}, duplicated {naive['duplicated']} "
        f"in {naive['elapsed']:.1f} s ({naive['dropped']} connections dropped)"
    )
    print(
        f"contrast, no payment_id, the client's default: created {unsafe['created']}, "
        f"raised {unsafe['lost']}{raised(unsafe)} of which {unsafe['raised_but_created']} had "
        f"created their payment all the same, duplicated {unsafe['duplicated']} "
        f"in {unsafe['elapsed']:.1f} s"
    )
    record(
        "faults",
        [
            Figure("payments created (with payment_id)", keyed["created"], "", "==", n),
            Figure("payments lost", keyed["lost"], "", "==", 0),
            Figure("payments duplicated", keyed["duplicated"], "", "==", 0),
            Figure("orders stored", keyed["stored_orders"], "", "==", n),
            Figure("lost answers recovered (HE_01, then read)", keyed["recovered"], ""),
            Figure("connections dropped", keyed["dropped"], ""),
            Figure("time", keyed["elapsed"], "s"),
            Figure(
                "contrast: duplicated without payment_id, repeated as if safe",
                naive["duplicated"],
                "",
            ),
        ],
        what=f"{n} payments through ApiClient with payment_id on a sandbox at fault rate "
        f"{args.fault_rate} (seed {args.seed}), {args.concurrency} at a time",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--payments", type=int, default=300)
    parser.add_argument("--fault-rate", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--attempts", type=int, default=8)
    sys.exit(asyncio.run(main(parser.parse_args())))

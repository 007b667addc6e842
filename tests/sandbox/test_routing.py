"""`DirectRoute`: request-only handlers skip FastAPI's parameter machinery, others keep it."""

from __future__ import annotations

import httpx
from fastapi import APIRouter, FastAPI, Request
from starlette.responses import JSONResponse, Response

from payscope.sandbox.routing import DirectRoute, _direct_handler
from payscope.sandbox.server import Sandbox


def _app() -> tuple[FastAPI, APIRouter]:
    router = APIRouter(route_class=DirectRoute)

    @router.get("/things/{thing_id}/parts/{part}")
    async def part(request: Request, thing_id: str, part: str) -> Response:
        return JSONResponse({"thing": thing_id, "part": part, "method": request.method})

    @router.get("/ping")
    async def ping() -> Response:
        return JSONResponse({"pong": True})

    @router.get("/count")
    async def count(n: int) -> Response:  # a query parameter: FastAPI validates it
        return JSONResponse({"n": n})

    app = FastAPI()
    app.include_router(router)
    return app, router


async def test_direct_handlers_get_path_params_and_fallback_keeps_validation() -> None:
    app, router = _app()
    direct = {r.path: _direct_handler(r) is not None for r in router.routes}  # type: ignore[attr-defined]
    assert direct == {"/things/{thing_id}/parts/{part}": True, "/ping": True, "/count": False}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        got = await http.get("/things/t1/parts/p2")
        assert got.json() == {"thing": "t1", "part": "p2", "method": "GET"}
        assert (await http.get("/ping")).json() == {"pong": True}
        assert (await http.get("/count?n=3")).json() == {"n": 3}
        assert (await http.get("/count?n=three")).status_code == 422
        assert (await http.get("/pingx")).status_code == 404
        assert (await http.get("/things/t1/parts")).status_code == 404
        assert (await http.post("/ping")).status_code == 405


async def test_sandbox_routes_stay_in_the_openapi_document(sandbox: Sandbox) -> None:
    transport = httpx.ASGITransport(app=sandbox.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        spec = (await http.get("/openapi.json")).json()
    create = spec["paths"]["/payments"]["post"]
    ref = create["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert ref == "#/components/schemas/PaymentCreateRequest"
    assert "post" in spec["paths"]["/payments/{payment_id}/confirm"]
    assert "get" in spec["paths"]["/health"]

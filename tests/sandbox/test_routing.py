"""`routing.served`: request-only handlers are served as plain Starlette routes (FastAPI's
parameter machinery skipped), others keep FastAPI's handling; the sandbox takes no HEAD."""

from __future__ import annotations

import httpx
from fastapi import APIRouter, FastAPI, Request
from fastapi.routing import APIRoute
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from payscope.sandbox.routing import direct_handler, served, without_head
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import API_KEY


def _app() -> tuple[FastAPI, APIRouter]:
    router = APIRouter()

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
    app.router.routes.extend(served(router.routes))
    return app, router


async def test_direct_handlers_get_path_params_and_fallback_keeps_validation() -> None:
    app, router = _app()
    direct = {r.path: direct_handler(r) is not None for r in router.routes}  # type: ignore[attr-defined]
    assert direct == {"/things/{thing_id}/parts/{part}": True, "/ping": True, "/count": False}
    kinds = {r.path: type(r) for r in app.router.routes if r.path in direct}  # type: ignore[attr-defined]
    assert kinds == {"/things/{thing_id}/parts/{part}": Route, "/ping": Route, "/count": APIRoute}
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
        # As FastAPI's own GET routes: HEAD is not served.
        assert (await http.head("/ping")).status_code == 405
        assert (await http.head("/count?n=3")).status_code == 405


def test_allow_leaves_head_out() -> None:
    assert without_head("GET, HEAD") == "GET"
    assert without_head("HEAD, GET") == "GET"
    assert without_head("POST") == "POST"


async def test_sandbox_routes_stay_in_the_openapi_document(sandbox: Sandbox) -> None:
    transport = httpx.ASGITransport(app=sandbox.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        spec = (await http.get("/openapi.json")).json()
    create = spec["paths"]["/payments"]["post"]
    ref = create["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert ref == "#/components/schemas/PaymentCreateRequest"
    assert "post" in spec["paths"]["/payments/{payment_id}/confirm"]
    assert "get" in spec["paths"]["/health"]
    # Served by plain Starlette routes, documented from the routers' APIRoutes.
    served_as = {
        r.path: type(r) for r in sandbox.app.router.routes if getattr(r, "path", "") == "/health"
    }
    assert served_as == {"/health": Route}


async def test_the_sandbox_answers_head_and_wrong_methods_with_405_naming_the_right_one(
    sandbox: Sandbox,
) -> None:
    transport = httpx.ASGITransport(app=sandbox.app)
    key = {"api-key": API_KEY}
    async with httpx.AsyncClient(transport=transport, base_url="http://t", headers=key) as http:
        for method in ("HEAD", "POST", "DELETE"):
            answer = await http.request(method, "/health")
            assert answer.status_code == 405, method
            assert answer.headers["allow"] == "GET", method
            if method != "HEAD":
                error = answer.json()["error"]
                assert error["code"] == "IR_03"
                assert error["message"].endswith("It takes: GET."), error["message"]

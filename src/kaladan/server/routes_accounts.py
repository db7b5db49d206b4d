"""Accounts over HTTP: sign up, sign in and out, the account's settings, e-mail links, and
claiming a seat played as a guest (docs/api.md "Accounts")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse, Response

from .account_models import (
    AccountSettings,
    ChangePassword,
    Credentials,
    DeleteAccount,
    LinkToken,
    NewAccount,
    ResetPassword,
    ResetRequest,
    SessionInfo,
)
from .accounts import DELETED_NAME, Account, Accounts, Keep
from .deps import bearer_token, service_of
from .errors import BEARER_CHALLENGE, SESSION_CHALLENGE, ApiError
from .limits import client_address
from .models import errors
from .service import GameService
from .sessions import (
    clear_session_cookie,
    require_account,
    session_body,
    session_of,
    set_session_cookie,
    signed_in,
)

router = APIRouter(prefix="/api", tags=["accounts"])
# e-mail links: served only by a server with a mail server (--smtp-url)
mail_router = APIRouter(prefix="/api", tags=["accounts"])
Service = Annotated[GameService, Depends(service_of)]
SignedIn = Annotated[Account, Depends(require_account)]


def accounts_of(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


AccountsDep = Annotated[Accounts, Depends(accounts_of)]


def _with_session(request: Request, account: Account, secret: str,
                  status: int = 200) -> JSONResponse:
    response = JSONResponse(session_body(account, secret), status_code=status)
    set_session_cookie(response, request, secret)
    return response


@router.post("/accounts", status_code=201, response_model=SessionInfo,
             responses=errors(400, 409, 429), summary="Sign up",
             operation_id="signUp")
async def sign_up(body: NewAccount, request: Request, accounts: AccountsDep) -> Any:
    """A new account, signed in at once: the answer sets the session cookie and gives the
    CSRF token every cookie-authenticated write sends in ``X-CSRF-Token``. 409
    ``name_taken`` when the name is someone's (names differing only in case are one)."""
    account, secret = await accounts.sign_up(body.name, body.password, body.email,
                                              client_address(request.scope),
                                              session_of(request))
    return _with_session(request, account, secret, 201)


@router.post("/session", response_model=SessionInfo, responses=errors(401, 429),
             summary="Sign in", operation_id="signIn")
async def sign_in(body: Credentials, request: Request, accounts: AccountsDep) -> Any:
    """A new session (a new cookie, never the one sent: no session fixation). 401
    ``bad_credentials`` for an unknown name or a wrong password alike."""
    account, secret = await accounts.sign_in(body.name, body.password,
                                             client_address(request.scope),
                                             session_of(request))
    return _with_session(request, account, secret)


@router.get("/session", response_model=SessionInfo, responses=errors(401),
            summary="Who is signed in", operation_id="getSession")
async def get_session(request: Request) -> Any:
    """The signed-in player's settings and the session's CSRF token; 401 (and the cookie
    cleared) when the session is unknown or over."""
    account = signed_in(request)
    secret = request.scope.get("state", {}).get("secret")
    if account is None or secret is None:
        response = JSONResponse(ApiError(401, "not_signed_in", "nobody is signed in")
                                .body(), status_code=401, headers=SESSION_CHALLENGE)
        clear_session_cookie(response, request)
        return response
    return session_body(account, secret)


@router.delete("/session", status_code=204, responses=errors(401, 403),
               summary="Sign out", operation_id="signOut")
async def sign_out(request: Request, account: SignedIn, accounts: AccountsDep) -> Response:
    session = session_of(request)
    assert session is not None
    await accounts.sign_out(session)
    response = Response(status_code=204)
    clear_session_cookie(response, request)
    return response


@router.delete("/sessions", status_code=204, responses=errors(401, 403),
               summary="Sign out everywhere", operation_id="signOutEverywhere")
async def sign_out_everywhere(request: Request, account: SignedIn,
                              accounts: AccountsDep) -> Response:
    """End every session of the account, on every device, this one too."""
    await accounts.sign_out_everywhere(account)
    response = Response(status_code=204)
    clear_session_cookie(response, request)
    return response


@router.patch("/account", response_model=SessionInfo, responses=errors(400, 401, 403),
              summary="Change the account's settings", operation_id="updateAccount")
async def update_account(body: AccountSettings, request: Request, account: SignedIn,
                         accounts: AccountsDep) -> Any:
    """E-mail address (a new one is confirmed by the link mailed to it), turn mails, chat.
    Fields left out stay as they are; ``email: null`` removes the address."""
    fields = body.model_fields_set
    updated = await accounts.update(
        account, email=body.email if "email" in fields else Keep.KEEP,
        notify_email=body.notify_email if "notify_email" in fields else None,
        chat=body.chat if "chat" in fields else None)
    return session_body(updated, request.scope["state"]["secret"])


@router.put("/account/password", response_model=SessionInfo, responses=errors(400, 401, 403),
            summary="Change the password", operation_id="changePassword")
async def change_password(body: ChangePassword, request: Request, account: SignedIn,
                          accounts: AccountsDep) -> Any:
    """Every other session ends; this one continues under a new cookie."""
    session = session_of(request)
    assert session is not None
    secret = await accounts.change_password(account, body.password, body.new_password,
                                            session)
    return _with_session(request, account, secret)


@router.delete("/account", status_code=204, responses=errors(401, 403),
               summary="Delete the account", operation_id="deleteAccount")
async def delete_account(body: DeleteAccount, request: Request, account: SignedIn,
                         accounts: AccountsDep, service: Service) -> Response:
    """The games stay; the account's seats show "deleted player" and its name is free."""
    games = await accounts.delete(account, body.password)
    await request.app.state.matchmaker.leave(account)  # out of any quick-match queue
    await service.rename_player(games, account.id, DELETED_NAME)
    response = Response(status_code=204)
    clear_session_cookie(response, request)
    return response


@mail_router.post("/account/email/confirm", response_model=SessionInfo,
                  responses=errors(404),
             summary="Confirm the e-mail address with the mailed link's token",
             operation_id="confirmEmail")
async def confirm_email(body: LinkToken, request: Request, accounts: AccountsDep) -> Any:
    account = await accounts.confirm_email(body.token)
    secret = request.scope.get("state", {}).get("secret")
    return {**account.to_json(), "csrf": None} if secret is None else session_body(
        account, secret)


@mail_router.post("/password-reset", status_code=202, responses=errors(429),
             summary="Mail a password reset link", operation_id="requestPasswordReset")
async def request_reset(body: ResetRequest, request: Request, accounts: AccountsDep) -> Any:
    """Sent to the account's confirmed address, if it has one; the answer is the same
    either way (it tells nobody which names or addresses exist)."""
    await accounts.request_reset(body.name, client_address(request.scope))
    return JSONResponse({"status": "sent if the account has a confirmed address"},
                        status_code=202)


@mail_router.post("/password-reset/confirm", status_code=204, responses=errors(404),
             summary="Choose a new password with the mailed link's token",
             operation_id="resetPassword")
async def reset_password(body: ResetPassword, accounts: AccountsDep) -> Response:
    """Every session of the account ends; sign in with the new password."""
    await accounts.reset_password(body.token, body.password)
    return Response(status_code=204)


@router.post("/games/{game_id}/seats/{seat}/claim", status_code=204,
             responses=errors(401, 403, 404, 409), summary="Make a guest's seat the account's",
             operation_id="claimSeat", tags=["lobby"])
async def claim_seat(game_id: Annotated[str, Path(max_length=200)], seat: int,
                     request: Request, account: SignedIn, service: Service) -> Response:
    """A player who signed up or in during or after a game played as a guest sends the
    seat's token with the session: the seat, its record and its rating become the
    account's."""
    live = await service.get(game_id, client_address(request.scope))
    token = bearer_token(request)
    if token is None:
        raise ApiError(401, "missing_token", "send the seat's token to claim it",
                       headers=BEARER_CHALLENGE)
    if service.seat_for_token(live, token) != seat:
        raise ApiError(403, "bad_token", f"this token is not seat {seat + 1}'s")
    await service.claim(live, seat, account)
    return Response(status_code=204)

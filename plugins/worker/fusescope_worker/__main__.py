"""Entry point: `python -m fusescope_worker`.

Writes `hello`, then answers one `run` or `list_backends` request read from stdin and exits,
so a crash or leak in one backend never reaches another (docs/protocol.md). After an export
request it answers the LibTorch runner's eager calls first (eager_server.py).
Exit status: 0 after a clean exit (also after a reported error), 3 after bad_request.
"""
import signal
import sys

from .compile_cache import WorkerScratch

EXIT_OK = 0
EXIT_BAD_REQUEST = 3


def _serve(channel, scratch) -> int:
    # torch is imported here, after WorkerScratch pointed the compile cache at a fresh directory.
    from . import devices
    from .errors import BAD_REQUEST, WorkerError, internal, model_exit
    from .request import parse_line, parse_run

    channel.send("hello", **devices.hello_fields())
    for line in sys.stdin:
        if not line.strip():
            continue
        request = None
        try:
            request = parse_line(line)
            if isinstance(request.get("id"), str):
                channel.request_id = request["id"]
            kind = request["type"]
            if kind == "shutdown":
                break
            if kind == "list_backends":
                from .backends import list_backends
                channel.send("backends", backends=list_backends())
                break
            from .pipelines import EXPORTS
            if kind in EXPORTS:  # the LibTorch family's artefacts (docs/libtorch.md, pipelines.py)
                EXPORTS[kind].serve(request, channel, scratch, sys.stdin)
                break
            if kind != "run":
                raise WorkerError(BAD_REQUEST, f"unknown request type '{kind}' "
                                  "(run, list_backends, export_torchscript, export_aoti, shutdown)")
            run_request = parse_run(request)
            if run_request.options["dynamo"]:
                from .compile_timing import apply_dynamo_config
                apply_dynamo_config(run_request.options["dynamo"], run_request.backend)
        except WorkerError as error:
            channel.error(error.fields())
            if error.code == BAD_REQUEST:
                return EXIT_BAD_REQUEST
            break
        except SystemExit as exc:  # model code called sys.exit() during an export
            channel.error(model_exit(request.get("model") if request else None, exc).fields())
            break
        except Exception as exc:  # a bug in the worker: still say so on the protocol
            channel.error(internal(exc).fields())
            break
        from .pipelines import run
        try:
            code = run(run_request, channel, scratch)
        except SystemExit as exc:  # model code the run does not wrap (ModelExit covers the rest)
            channel.error(model_exit(run_request.model, exc).fields())
            break
        if code == BAD_REQUEST:  # e.g. options torch rejected
            return EXIT_BAD_REQUEST
        break
    channel.bye()
    return EXIT_OK


def _terminate(signum, frame):
    from .errors import WorkerTerminated
    raise WorkerTerminated(signum)


def main() -> int:
    # First, before torch or any model code: the channel token leaves the environment.
    from .protocol import Channel, take_channel_token
    token = take_channel_token()
    # The C++ side stops a worker with SIGTERM on timeout or cancel: exit through `finally`
    # so the scratch directory goes too. WorkerTerminated, not SystemExit, so the code that
    # reports a model's sys.exit() never takes the stop for the model's doing.
    from .errors import WorkerTerminated
    signal.signal(signal.SIGTERM, _terminate)
    scratch = WorkerScratch()
    try:
        return _serve(Channel(token), scratch)
    except WorkerTerminated as stop:
        return 128 + stop.signum
    finally:
        scratch.remove()


if __name__ == "__main__":
    sys.exit(main())

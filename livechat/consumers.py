"""The chatbox's websocket: parses frames and calls the same dialog services as the REST calls."""

import json
import logging

from channels.generic.websocket import WebsocketConsumer

from bots.servlet.envelope import encode_values
from bots.servlet.errors import ServletError
from bots.servlet.params import CONTEXT_ID
from bots.servlet.views import get_bot
from dialogs import contexts
from dialogs.engine import talk
from dialogs.history import history_values
from dialogs.requests import params_from_frame, talk_request_from_params
from dialogs.topknowledge import top_knowledge_values
from knowledge.snapshot import snapshot_for

log = logging.getLogger(__name__)
SUBPROTOCOL = "svcchat"


class ChatboxConsumer(WebsocketConsumer):
    def connect(self):
        # servlet-api.md names the svcchat subprotocol; the chatbox offers none, so both are accepted.
        offered = self.scope.get("subprotocols") or []
        self.accept(SUBPROTOCOL if SUBPROTOCOL in offered else None)

    def receive(self, text_data=None, bytes_data=None):
        if text_data is None:
            return
        if text_data.strip() == "ping":
            self.send(text_data="pong")
            return
        try:
            frame = json.loads(text_data)
            if not isinstance(frame, dict):
                raise ValueError("a frame is a JSON object")
            self.handle(str(frame.get("type", "")), frame.get("parameters") or {})
        except ServletError as error:
            self.send_frame("notification", {"code": "ERRInvalidRequest", "error": error.message})
        except ValueError:
            self.send_frame("notification", {"code": "ERRInvalidRequest", "error": "Frames are JSON objects."})

    def handle(self, frame_type: str, parameters: dict):
        if not isinstance(parameters, dict):
            raise ValueError("parameters is a JSON object")
        params = params_from_frame(parameters)
        bot = get_bot(params.text("botId", "botUUID"))
        if frame_type == "talk":
            answer = talk(bot, talk_request_from_params(params))
            self.send_frame("talkResponse", answer.values(bot))
        elif frame_type == "checkContextAvailability":
            available = contexts.active_dialog(bot, params.text(*CONTEXT_ID)) is not None
            self.send_frame("checkContextAvailabilityResponse", {"isContextStillAvailable": available})
        elif frame_type == "history":
            dialog = contexts.active_dialog(bot, params.text("dialog") or params.text(*CONTEXT_ID))
            values = {"interactions": history_values(dialog), "contextId": str(dialog.uuid) if dialog else ""}
            self.send_frame("historyResponse", values)
        elif frame_type == "topknowledge":
            self.send_frame("topKnowledgeResponse", top_knowledge_values(snapshot_for(bot), params))
        elif frame_type in ("typing", "reading"):
            return  # no answer expected; live chat relays them to the operator
        else:
            self.send_frame(
                "notification", {"code": "ERRInvalidRequest", "error": f"Unknown frame type {frame_type!r}."}
            )

    def send_frame(self, frame_type: str, values: dict):
        self.send(text_data=json.dumps({"type": frame_type, "values": encode_values(values)}))

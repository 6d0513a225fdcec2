# Makes qwen3-render.jsonl, the golden renders test/to-atropos/render.test.ts compares against:
# each chat rendered with Qwen3's chat template the way transformers' apply_chat_template renders
# (Jinja2's ImmutableSandboxedEnvironment, trim_blocks and lstrip_blocks, loop controls), and the
# character spans transformers' return_assistant_tokens_mask trains: the template's assistant branch
# wrapped in {% generation %} ... {% endgeneration %}, from after "<|im_start|>assistant\n" through
# "<|im_end|>\n". Run from the repository root:
#   python3 test/to-atropos/golden/qwen3-render.py CHATS.json TOKENIZER_CONFIG.json > test/to-atropos/golden/qwen3-render.jsonl
# where CHATS.json is [{"id", "kind", "messages"}] (the raw messages hermes-to-atropos renders).
import json
import sys

from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

OPEN, CLOSE = "\x00<generation>\x00", "\x00</generation>\x00"


class Generation(Extension):
    """{% generation %}...{% endgeneration %}: its output, marked where it starts and ends."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_mark"), [], [], body).set_lineno(lineno)

    def _mark(self, caller):
        return OPEN + caller() + CLOSE


def with_generation_markers(template):
    """Qwen3's template with its assistant branch's output after the role header in a generation block."""
    header = "'<|im_start|>' + message.role + '\\n"
    think = "{{- " + header + "<think>\\n' + reasoning_content"
    bare = "{{- " + header + "' + content }}"
    assert template.count(think) == 1 and template.count(bare) == 2
    template = template.replace(think, "{{- '<think>\\n' + reasoning_content").replace(bare, "{{- content }}")
    branch = "        {%- if loop.index0 > ns.last_query_index %}"
    end = "        {{- '<|im_end|>\\n' }}\n    {%- elif message.role == \"tool\" %}"
    assert template.count(branch) == 1 and template.count(end) == 1
    template = template.replace(branch, "        {{- " + header + "' }}{% generation %}\n" + branch)
    return template.replace(end, "        {{- '<|im_end|>\\n' }}{% endgeneration %}\n    {%- elif message.role == \"tool\" %}")


def main():
    chats = json.load(open(sys.argv[1]))
    config = json.load(open(sys.argv[2]))
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[Generation, loopcontrols])
    plain = env.from_string(config["chat_template"])
    marked = env.from_string(with_generation_markers(config["chat_template"]))
    for chat in chats:
        text = plain.render(messages=chat["messages"], add_generation_prompt=False)
        out = marked.render(messages=chat["messages"], add_generation_prompt=False)
        spans, cleaned, at = [], "", 0
        while True:
            start = out.find(OPEN, at)
            if start < 0:
                cleaned += out[at:]
                break
            cleaned += out[at:start]
            end = out.index(CLOSE, start)
            inner = out[start + len(OPEN):end]
            spans.append([len(cleaned), len(cleaned) + len(inner)])
            cleaned += inner
            at = end + len(CLOSE)
        assert cleaned == text, chat["id"]
        print(json.dumps({"id": chat["id"], "kind": chat["kind"], "messages": chat["messages"], "text": text, "assistant_spans": spans}, ensure_ascii=False))


main()

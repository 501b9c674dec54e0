"""A CMS-style checker (argv: input answer output; the score in [0, 1] on stdout), as open-r1's
`generated_checker`s are: the output must hold the answer's tokens in any order; partial credit
for the share of them it holds."""

import sys
from collections import Counter

_, _, answer_path, output_path = sys.argv[:4]
with open(answer_path) as answer, open(output_path) as output:
    want, got = Counter(answer.read().split()), Counter(output.read().split())
if got == want:
    print(1)
else:
    print(sum((want & got).values()) / max(1, sum(want.values())))
    print("tokens differ", file=sys.stderr)

"""Records the official Agent Skills validator's verdict in every case's expected.json.

Each case is a folder holding expected.json (its "folder" names the skill folder beside it) and
that skill folder with its SKILL.md. The validator is skills-ref, from the skills-ref/ folder of
the agentskills/agentskills repository, run from source:

    PYTHONPATH=<agentskills>/skills-ref/src python3 record_reference.py . "<commit and date>"

It needs strictyaml (Debian: python3-strictyaml). Only "reference" is rewritten; "difference"
(why kagent-run decides otherwise on purpose) is written by hand.
"""

import json
import sys
from pathlib import Path

from skills_ref import read_properties, validate
from skills_ref.errors import SkillError

root = Path(sys.argv[1])
source = sys.argv[2]
for case_dir in sorted(path for path in root.iterdir() if path.is_dir()):
    expected_path = case_dir / "expected.json"
    expected = json.loads(expected_path.read_text(encoding="utf-8"))
    skill_dir = case_dir / expected["folder"]
    errors = validate(skill_dir)
    reference = {"valid": errors == [], "errors": errors}
    if not errors:
        try:
            reference["properties"] = read_properties(skill_dir).to_dict()
        except SkillError as error:
            reference["properties_error"] = str(error)
    reference["how"] = f"run: skills_ref.validate() and read_properties() of skills-ref {source}"
    expected["reference"] = reference
    expected_path.write_text(
        json.dumps(expected, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    print(("valid   " if not errors else "invalid ") + case_dir.name)

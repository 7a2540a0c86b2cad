package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// registryIDs are the requirement identifiers of the a2a-cli specification's COMPLIANCE.md (v0.2), with their tier:
// the report must carry every one of them.
var registryIDs = map[string]int{
	"A2ACLI_CARD_GET_001": 1, "A2ACLI_SEND_001": 1, "A2ACLI_SEND_002": 1, "A2ACLI_SEND_003": 1,
	"A2ACLI_SEND_004": 1, "A2ACLI_SEND_005": 1, "A2ACLI_SEND_006": 1, "A2ACLI_TASK_GET_001": 1,
	"A2ACLI_TASK_CANCEL_001": 1, "A2ACLI_INTERACT_001": 1, "A2ACLI_INTERACT_002": 1, "A2ACLI_INTERACT_003": 1,
	"A2ACLI_INTERACT_004": 1, "A2ACLI_INTERACT_005": 1, "A2ACLI_TASK_POLL_001": 1, "A2ACLI_TASK_POLL_002": 1,
	"A2ACLI_TASK_POLL_003": 1, "A2ACLI_TASK_POLL_004": 1, "A2ACLI_OUT_001": 1, "A2ACLI_OUT_002": 1,
	"A2ACLI_OUT_003": 1, "A2ACLI_OUT_004": 1, "A2ACLI_OUT_005": 1, "A2ACLI_OUT_006": 1,
	"A2ACLI_EXIT_001": 1, "A2ACLI_EXIT_002": 1, "A2ACLI_AUTH_001": 1, "A2ACLI_AUTH_002": 1,
	"A2ACLI_AUTH_003": 1, "A2ACLI_AUTH_004": 1, "A2ACLI_TX_001": 1, "A2ACLI_TX_002": 1,
	"A2ACLI_TX_003": 1, "A2ACLI_VER_001": 1, "A2ACLI_DEFAULT_001": 1, "A2ACLI_CONFIG_001": 1,
	"A2ACLI_CLI_001": 1, "A2ACLI_SKILL_001": 1, "A2ACLI_SKILL_002": 1, "A2ACLI_CARD_GET_002": 2,
	"A2ACLI_TASK_LIST_001": 2, "A2ACLI_TASK_SUBSCRIBE_001": 2, "A2ACLI_TASK_SUBSCRIBE_002": 2, "A2ACLI_AUTH_005": 2,
	"A2ACLI_AUTH_006": 2, "A2ACLI_AUTH_007": 2, "A2ACLI_TX_004": 2, "A2ACLI_VER_003": 2,
	"A2ACLI_CONFIG_002": 2, "A2ACLI_DOWNLOAD_001": 2, "A2ACLI_OUT_007": 2, "A2ACLI_CONFORM_001": 2,
	"A2ACLI_CLI_002": 2, "A2ACLI_PUSH_001": 2, "A2ACLI_CARD_GET_003": 3, "A2ACLI_CARD_GET_004": 3,
	"A2ACLI_CARD_GET_005": 3, "A2ACLI_PUSH_002": 3, "A2ACLI_CHAT_001": 3, "A2ACLI_TX_005": 3,
	"A2ACLI_AUTH_008": 3, "A2ACLI_AUTH_009": 3, "A2ACLI_AUTH_010": 3, "A2ACLI_AUTH_011": 3,
	"A2ACLI_DEMO_SERVER_001": 3, "A2ACLI_VER_002": 3,
}

type complianceReport struct {
	Report struct {
		TierClaimed int `yaml:"tier_claimed"`
	} `yaml:"report"`
	Summary      map[string]map[string]any `yaml:"summary"`
	Requirements map[string]struct {
		Tier   int      `yaml:"tier"`
		Status string   `yaml:"status"`
		Note   *string  `yaml:"note"`
		Tests  []string `yaml:"tests"`
	} `yaml:"requirements"`
}

// TestComplianceReport holds COMPLIANCE.yaml to the code: every requirement id of the specification is there, every
// test it names exists (e2e.TestX, internal/PKG.TestX, script:NAME), a pass or partial names at least one, anything
// but a pass says why, and the summary and the claimed tier follow from the statuses.
func TestComplianceReport(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile("../COMPLIANCE.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var rep complianceReport
	if err := yaml.Unmarshal(body, &rep); err != nil {
		t.Fatalf("COMPLIANCE.yaml: %v", err)
	}
	for id, tier := range registryIDs {
		r, ok := rep.Requirements[id]
		if !ok {
			t.Errorf("%s: missing from the report", id)
			continue
		}
		if r.Tier != tier {
			t.Errorf("%s: tier %d, the registry says %d", id, r.Tier, tier)
		}
	}
	counts := map[int]map[string]int{1: {}, 2: {}, 3: {}}
	for id, r := range rep.Requirements {
		if _, ok := registryIDs[id]; !ok {
			t.Errorf("%s: not a requirement of the registry", id)
		}
		switch r.Status {
		case "pass", "partial", "fail", "na", "not_measured":
		default:
			t.Errorf("%s: status %q", id, r.Status)
		}
		counts[r.Tier][r.Status]++
		if (r.Status == "pass" || r.Status == "partial") && len(r.Tests) == 0 {
			t.Errorf("%s: %s with no test", id, r.Status)
		}
		if r.Status != "pass" && (r.Note == nil || strings.TrimSpace(*r.Note) == "") {
			t.Errorf("%s: %s needs a note saying why", id, r.Status)
		}
		for _, name := range r.Tests {
			if err := testExists(name); err != nil {
				t.Errorf("%s: %v", id, err)
			}
		}
	}
	highest := 0
	for tier := 1; tier <= 3; tier++ {
		c := counts[tier]
		total := 0
		for _, n := range c {
			total += n
		}
		sum := rep.Summary[fmt.Sprintf("tier_%d", tier)]
		for _, k := range []string{"pass", "partial", "fail", "na", "not_measured"} {
			if got, _ := sum[k].(int); got != c[k] {
				t.Errorf("summary tier_%d %s = %v, the statuses say %d", tier, k, sum[k], c[k])
			}
		}
		if got, _ := sum["total"].(int); got != total {
			t.Errorf("summary tier_%d total = %v, want %d", tier, sum["total"], total)
		}
		satisfied := c["pass"]+c["na"] == total
		if got, _ := sum["satisfied"].(bool); got != satisfied {
			t.Errorf("summary tier_%d satisfied = %v, the statuses say %v", tier, sum["satisfied"], satisfied)
		}
		if satisfied && highest == tier-1 {
			highest = tier
		}
	}
	if rep.Report.TierClaimed != highest {
		t.Errorf("tier_claimed %d, the highest tier met (with every lower one) is %d", rep.Report.TierClaimed, highest)
	}
}

// testExists finds a test the report names: e2e.TestX, internal/PKG.TestX (a func in that package's tests) or
// script:NAME (a transcript).
func testExists(name string) error {
	if script, ok := strings.CutPrefix(name, "script:"); ok {
		if _, err := os.Stat(filepath.Join("testdata", "script", script+".txtar")); err != nil {
			return fmt.Errorf("no transcript %s", name)
		}
		return nil
	}
	i := strings.LastIndex(name, ".")
	if i < 0 {
		return fmt.Errorf("test %q: want e2e.TestX, internal/PKG.TestX or script:NAME", name)
	}
	pkg, fn := name[:i], name[i+1:]
	dir := "."
	if pkg != "e2e" {
		dir = filepath.Join("..", pkg)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	re := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(fn) + `\(t \*testing\.T\)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && re.Match(b) {
			return nil
		}
	}
	return fmt.Errorf("no test %s (func %s in %s/*_test.go)", name, fn, dir)
}

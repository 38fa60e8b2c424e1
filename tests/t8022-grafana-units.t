#!/bin/bash
# The Grafana dashboard (docs/grafana/hpcq.json): every axis of every
# time-series panel has one unit, the unit of what its queries measure
# (tests/grafana-units.py reads the quantity from each query's PromQL and
# the axis from the panel's overrides, as Grafana applies them).
. "$(dirname "$0")/lib.sh"

dash=$HPCQ_SRCDIR/docs/grafana/hpcq.json
check() { python3 "$HPCQ_SRCDIR/tests/grafana-units.py" "$@"; }

test_expect_success 'no panel mixes units on one axis' '
    check "$dash"
'

test_expect_success 'the two-unit panels draw the second unit on a right axis' '
    for id in 16 21 22 27; do
        jq -e --argjson id $id ".panels[] | select(.id == \$id) | .fieldConfig.overrides[0].properties |
            any(.id == \"custom.axisPlacement\" and .value == \"right\")" "$dash" > /dev/null ||
            { echo "panel $id"; exit 1; }
    done
'

test_expect_success 'the check finds a panel that draws commits/s beside commit seconds' '
    jq "(.panels[] | select(.id == 21) | .fieldConfig.overrides) = []" "$dash" > mixed.json &&
    ! check mixed.json > out && cat out && grep -q "panel 21 .Database commit., left axis mixes per-second and time" out &&
    jq "(.panels[] | select(.id == 16) | .fieldConfig.defaults.unit) = \"short\"" "$dash" > unit.json &&
    ! check unit.json > out && grep -q "panel 16 .* draws power in unit .short." out
'

test_done

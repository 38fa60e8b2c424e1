-- 0010: what an attempt would have cost on on-demand nodes (issue 13's
-- reports of what spot saved): its spot nodes at their on-demand price
-- (ondemand_price_per_hour, the node's label or the class's setting, else
-- its own price: no saving known), its on-demand nodes at their price.
-- NULL for attempts before this migration, and while an attempt runs.
ALTER TABLE attempts ADD COLUMN cost_ondemand REAL;

-- Composite GIN indexes (company_id first, then a trigram column) need btree_gin's opclasses for int4.
CREATE EXTENSION IF NOT EXISTS btree_gin;

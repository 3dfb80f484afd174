-- checkin/list's `contains` on location and comment (issue 11, bench/checkins): a LIKE '%…%' tested
-- every check-in of the user to count the matches (~14 ms over 100,000 on a quiet machine). A
-- full-text index like tasks_fts (migration 010; src/store/text-search.ts): contentless, trigrams of
-- lower(text) up to its first NUL, case-sensitive, so a phrase matches exactly what the LIKE matches;
-- the rowid is (user_id << 36) | id, so one user's matches are a rowid range, counted by the index.
CREATE VIRTUAL TABLE checkins_fts USING fts5(address, comment,
  content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1');
INSERT INTO checkins_fts (rowid, address, comment)
  SELECT (user_id << 36) | id,
    lower(CASE WHEN instr(address, char(0)) THEN substr(address, 1, instr(address, char(0)) - 1) ELSE address END),
    lower(CASE WHEN instr(comment, char(0)) THEN substr(comment, 1, instr(comment, char(0)) - 1) ELSE coalesce(comment, '') END)
  FROM checkins;

CREATE TRIGGER checkins_fts_ins AFTER INSERT ON checkins BEGIN
  INSERT INTO checkins_fts (rowid, address, comment) VALUES ((NEW.user_id << 36) | NEW.id,
    lower(CASE WHEN instr(NEW.address, char(0)) THEN substr(NEW.address, 1, instr(NEW.address, char(0)) - 1) ELSE NEW.address END),
    lower(CASE WHEN instr(NEW.comment, char(0)) THEN substr(NEW.comment, 1, instr(NEW.comment, char(0)) - 1) ELSE coalesce(NEW.comment, '') END));
END;
CREATE TRIGGER checkins_fts_del AFTER DELETE ON checkins BEGIN
  DELETE FROM checkins_fts WHERE rowid = (OLD.user_id << 36) | OLD.id;
END;
CREATE TRIGGER checkins_fts_upd AFTER UPDATE OF user_id, address, comment ON checkins
WHEN OLD.user_id IS NOT NEW.user_id OR OLD.address IS NOT NEW.address OR OLD.comment IS NOT NEW.comment
BEGIN
  DELETE FROM checkins_fts WHERE rowid = (OLD.user_id << 36) | OLD.id;
  INSERT INTO checkins_fts (rowid, address, comment) VALUES ((NEW.user_id << 36) | NEW.id,
    lower(CASE WHEN instr(NEW.address, char(0)) THEN substr(NEW.address, 1, instr(NEW.address, char(0)) - 1) ELSE NEW.address END),
    lower(CASE WHEN instr(NEW.comment, char(0)) THEN substr(NEW.comment, 1, instr(NEW.comment, char(0)) - 1) ELSE coalesce(NEW.comment, '') END));
END;

-- A database written by kaladan at 6892fb8 (schema 0005, before accounts): three games
-- (a finished bots game, a running 2v2 with two joined humans, an open game). Made once
-- with that commit's GameService; tests/server/test_migrations.py upgrades it.
BEGIN TRANSACTION;
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO "alembic_version" VALUES('0005');
CREATE TABLE "games" (
	id VARCHAR(40) NOT NULL, 
	name VARCHAR(200) NOT NULL, 
	created DATETIME NOT NULL, 
	config JSON NOT NULL, 
	seed BIGINT NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	seats JSON NOT NULL, 
	creator VARCHAR(64), 
	seed_public BOOLEAN DEFAULT 0 NOT NULL, 
	problem TEXT, 
	hints BOOLEAN DEFAULT 0 NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO "games" VALUES('g_8918e8e3ab4a5952','bots to the end','2026-12-05 17:25:40.151747','{"players": 3, "mode": "free_for_all", "turn_order_die": "d12", "phase_order": "seeds", "starting_magic": "choose", "realm_conflict": "turn_order", "mountain_defence": "keep_all", "crown_defence_in_castle": "d6", "wolf_d12": "forest_either", "world": "standard", "end_game_card": "random", "team_castle_spots": "free", "upgrade_loss": "dead_only", "end_game_trigger": "final_round", "quick_setup": true}',11,'over','[{"kind": "bot", "bot": "greedy", "code_hash": null, "token_hash": null}, {"kind": "bot", "bot": "random", "code_hash": null, "token_hash": null}, {"kind": "bot", "bot": "greedy", "code_hash": null, "token_hash": null}]','25bf8e1a2393f1108d37029b3df5593236c755742ec93465bbafa9b290bddcf6',1,NULL,1);
INSERT INTO "games" VALUES('g_d32bc8b077fc34e4','a running 2v2','2026-12-05 17:25:40.211136','{"players": 4, "mode": "team_2v2", "turn_order_die": "d12", "phase_order": "seeds", "starting_magic": "choose", "realm_conflict": "turn_order", "mountain_defence": "keep_all", "crown_defence_in_castle": "d6", "wolf_d12": "forest_either", "world": "standard", "end_game_card": "random", "team_castle_spots": "free", "upgrade_loss": "dead_only", "end_game_trigger": "final_round", "quick_setup": false}',6693222927399698682,'running','[{"kind": "human", "bot": null, "code_hash": null, "token_hash": "94c7f0bab3e879364ed84fed1632e687c9ed93ee0956de699edbca219fb575c7"}, {"kind": "bot", "bot": "greedy", "code_hash": null, "token_hash": null}, {"kind": "human", "bot": null, "code_hash": null, "token_hash": "b6fbf7067d0ab19f2b0ae54b3088eacdc1caa946c90f08fc8ca809ad9225adcc"}, {"kind": "bot", "bot": "random", "code_hash": null, "token_hash": null}]','25bf8e1a2393f1108d37029b3df5593236c755742ec93465bbafa9b290bddcf6',0,NULL,1);
INSERT INTO "games" VALUES('g_3092502f9be00b01','open','2026-12-05 17:25:41.058408','{"players": 2, "mode": "free_for_all", "turn_order_die": "d12", "phase_order": "seeds", "starting_magic": "choose", "realm_conflict": "turn_order", "mountain_defence": "keep_all", "crown_defence_in_castle": "d6", "wolf_d12": "forest_either", "world": "standard", "end_game_card": "random", "team_castle_spots": "free", "upgrade_loss": "dead_only", "end_game_trigger": "final_round", "quick_setup": true}',4280352320291753340,'open','[{"kind": "human", "bot": null, "code_hash": "cc1864dd4eae65c983bbcdc61be12a8c3541cd4f82f405aa642ab50321172951", "token_hash": null}, {"kind": "human", "bot": null, "code_hash": "04189be9449c2d325d80c131d5168dc01f3eee7e5ca68e73df5e7b829ef595f2", "token_hash": null}]','25bf8e1a2393f1108d37029b3df5593236c755742ec93465bbafa9b290bddcf6',0,NULL,0);
CREATE TABLE leases (
	game_id VARCHAR(40) NOT NULL, 
	owner VARCHAR(100) NOT NULL, 
	token BIGINT NOT NULL, 
	expires DATETIME NOT NULL, 
	PRIMARY KEY (game_id), 
	FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE
);
CREATE TABLE steps (
	game_id VARCHAR(40) NOT NULL, 
	"index" INTEGER NOT NULL, 
	seat INTEGER NOT NULL, 
	action TEXT NOT NULL, 
	chance JSON NOT NULL, 
	PRIMARY KEY (game_id, "index"), 
	FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE
);
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',0,0,'spawn sword C3','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',1,0,'move C3 T3 general','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',2,0,'buy sword T1','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',3,0,'move C3 T6 sword','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',4,1,'place sword C2','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',5,1,'move C2 T7 crown','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',6,1,'end','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',7,1,'move T7 T4 crown','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',8,2,'spawn sword C1','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',9,2,'attack C1 T1','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',10,2,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',11,0,'nomagic','[6, 11, 1, 8, 12, 1]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',12,2,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',13,0,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',14,2,'leave sword','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',15,2,'upgrade special:laurielle T1','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',16,2,'move T1 T2 general','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',17,0,'place sword T3','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',18,0,'spawn archer C3','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',19,0,'attack T3 T4','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',20,0,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',21,1,'nomagic','[9, 7, 10, 1, 10]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',22,0,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',23,1,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',24,0,'upgrade special:nanchia C3','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',25,0,'buy archer T3','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',26,0,'move T4 T5 general','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',27,2,'spawn sword C1','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',28,2,'attack T1 T3','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',29,2,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',30,0,'nomagic','[6, 2, 3, 2]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',31,2,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',32,0,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',33,2,'upgrade sword T3','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',34,2,'buy sword T1','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',35,2,'pass','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',36,0,'spawn archer C3','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',37,0,'pass','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',38,0,'upgrade sword T4','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',39,0,'pass','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',40,2,'spawn archer C1','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',41,2,'attack T3 T6','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',42,2,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',43,0,'nomagic','[5, 8, 4, 8, 5]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',44,2,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',45,0,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',46,2,'upgrade sword T1','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',47,2,'move T6 T3 sword+','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',48,0,'pass','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',49,0,'upgrade sword C3','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',50,0,'pass','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',51,2,'gold','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',52,2,'spawn archer C1','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',53,2,'attack T2 T4','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',54,2,'nomagic','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',55,0,'magic NAN-1','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',56,2,'upgrade general T2','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',57,2,'move T6 T7 special:laurielle+','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',58,2,'lose sword C1','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',59,0,'attack C3 T6','[]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',60,2,'nomagic','[3, 7, 10, 2, 7, 6]');
INSERT INTO "steps" VALUES('g_8918e8e3ab4a5952',61,2,'nomagic','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',0,3,'realm kimbria','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',1,0,'realm ardinor','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',2,1,'realm laurielle','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',3,2,'realm khalisia','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',4,3,'card KIM-4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',5,0,'card ARD-4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',6,1,'card LAU-4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',7,2,'card KHA-1','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',8,2,'castle C1','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',9,1,'castle C4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',10,0,'castle C2','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',11,3,'castle C3','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',12,3,'start archer','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',13,0,'start archer','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',14,1,'start shield','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',15,2,'start shield','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',16,3,'end','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',17,3,'move C3 T9 crown,general,archer','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',18,3,'buy catapult T3','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',19,3,'swapcard KIM-4 KIM-3','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',20,3,'buy shield T3','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',21,3,'swap T9 C3 archer special:kimbria','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',22,0,'gold','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',23,1,'upgrade shield C4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',24,2,'gift 0 3','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',25,2,'gold','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',26,3,'gold','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',27,0,'end','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',28,0,'move C2 T11 crown,general','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',29,0,'buy archer T13','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',30,0,'extracard ARD-1','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',31,0,'buy shield T11','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',32,0,'buy archer C1','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',33,0,'buy sword T13','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',34,0,'buy sword C2','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',35,0,'swap T11 C2 general special:ardinor','[1, 3, 3, 2]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',36,1,'spawn sword C4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',37,1,'move C4 T1 general','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',38,1,'upgrade special:laurielle C4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',39,1,'pass','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',40,2,'move C1 T2 shield','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',41,2,'buy shield C1','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',42,2,'buy archer T4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',43,2,'buy shield T2','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',44,2,'move C1 T5 special:khalisia','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',45,0,'lose shield T11','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',46,3,'spawn shield C3','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',47,3,'move T3 T6 catapult,shield','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',48,3,'extracard KIM-4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',49,3,'move T6 T7 catapult','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',50,0,'spawn shield C2','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',51,0,'end','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',52,0,'move C2 T13 general','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',53,0,'buy catapult T3','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',54,0,'upgrade archer T13','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',55,0,'buy sword T3','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',56,0,'swap T11 C2 crown shield','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',57,1,'spawn sword C4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',58,1,'attack T1 T4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',59,1,'nomagic','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',60,2,'nomagic','[5, 1, 1, 2]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',61,1,'nomagic','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',62,2,'nomagic','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',63,1,'upgrade general T4','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',64,1,'move C4 T1 shield+','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',65,2,'gold','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',66,3,'place archer C3','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',67,0,'place archer C1','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',68,1,'place archer T1','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',69,2,'swap T2 C1 shield crown','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',70,2,'buy archer C2','[]');
INSERT INTO "steps" VALUES('g_d32bc8b077fc34e4',71,2,'swapcard KHA-1 KHA-4','[]');
CREATE INDEX ix_games_status ON games (status);
CREATE INDEX ix_games_created ON games (created);
CREATE INDEX ix_leases_expires ON leases (expires);
COMMIT;

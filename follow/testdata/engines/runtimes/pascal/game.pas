{ A small game for mcplogd's runtime tests: game MODE [PREFIX].

  It ticks five frames, logging "INFO: msg" or, with PREFIX "stamp",
  behind a timestamp and a padded level; warns of a missing texture in
  every run; then, in frame 3, deep in game code (Tick -> Spawn ->
  SpawnEnemy), MODE "nil" writes to a field of a nil enemy (the run-time
  library reports an EAccessViolation), "raise" raises an Exception
  nothing handles; "ok" does not crash. Build it with fpc -g -gl, so that
  the frames name their routines and lines. }
program game;
{$mode objfpc}{$H+}
uses SysUtils;

type
  TEnemy = class
    HP: Integer;
  end;

var
  Mode: string = 'ok';
  Stamped: Boolean = False;
  Boss: TEnemy = nil;
  Frame: Integer;

procedure Log(const Level, Msg: string);
begin
  if Stamped then
    WriteLn(StdErr, FormatDateTime('yyyy-mm-dd hh:nn:ss,zzz', Now), ' [', Format('%-7s', [Level]), '] ', Msg)
  else if Level = 'WARNING' then
    WriteLn(StdErr, 'WARN: ', Msg)
  else
    WriteLn(StdErr, Level, ': ', Msg);
  Flush(StdErr);
end;

procedure LoadTexture(const Name: string);
begin
  if not FileExists(Name) then
    Log('WARNING', 'missing texture ' + Name + ', using the placeholder');
end;

procedure SpawnEnemy(const Kind: string);
begin
  if Mode = 'nil' then Boss.HP := Boss.HP + 10; { CRASH:nil }
  if Mode = 'raise' then raise Exception.Create('no spawn point for ' + Kind); { CRASH:raise }
end;

procedure Spawn(F: Integer);
begin
  if F = 3 then
    SpawnEnemy('orc');
end;

procedure Tick(F: Integer);
begin
  Log('INFO', 'frame ' + IntToStr(F));
  if F = 1 then
    LoadTexture('enemy.png');
  Spawn(F);
end;

begin
  if ParamCount > 0 then
    Mode := ParamStr(1);
  Stamped := (ParamCount > 1) and (ParamStr(2) = 'stamp');
  Log('INFO', 'starting in mode ' + Mode);
  for Frame := 1 to 5 do
    Tick(Frame);
  Log('INFO', 'shutting down');
end.

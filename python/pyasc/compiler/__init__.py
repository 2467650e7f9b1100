"""The pyasc compiler: frontend (AST -> IR), ir, passes, codegen (IR -> assembly), driver."""

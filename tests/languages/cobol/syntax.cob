       IDENTIFICATION DIVISION.
       PROGRAM-ID. SYNTAX.
       PROCEDURE DIVISION.
           DISPLAY "missing quote.
           STOP RUN.
